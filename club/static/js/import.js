// Publish results (archive/import.html): while a file is sent and read, the form shows
// how far it has gone. First the upload, as the browser sends it; then, once the site has
// begun, the check and the import themselves, asked of the site about once a second
// (archive:import_progress, the words in the reader's language). Without scripts the
// form posts as it is, and the browser shows that it is busy.
(function () {
  "use strict";
  var ASK_EVERY = 800; // milliseconds
  var running = null; // {area, timer, told}

  function areaOf(elt) {
    var form = elt && elt.closest ? elt.closest("form.import-form") : null;
    return form ? form.querySelector(".import-progress") : null;
  }

  function show(area, percent, words) {
    var bar = area.querySelector("progress");
    if (percent === null) {
      bar.removeAttribute("value"); // a bar that moves without saying how far
    } else {
      bar.value = percent;
    }
    area.querySelector("[role=status]").textContent = words;
  }

  function ask() {
    if (!running) return;
    var current = running;
    fetch(current.area.dataset.url, {credentials: "same-origin", cache: "no-store"})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (told) {
        if (running !== current || !told || told.percent === null) return;
        current.told = true;
        show(current.area, told.percent, told.words);
      })
      .catch(function () { /* asked again in a moment */ });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var area = areaOf(event.detail.elt);
    if (!area) return;
    if (running) clearInterval(running.timer);
    // Under the button pressed (the import's is at the foot of a long preview), in sight.
    var line = event.detail.elt.closest("p");
    if (line && line.nextElementSibling !== area) line.after(area);
    area.hidden = false;
    area.scrollIntoView({block: "nearest"});
    show(area, 0, area.dataset.sending);
    running = {area: area, timer: setInterval(ask, ASK_EVERY), told: false};
  });

  document.addEventListener("htmx:xhr:progress", function (event) {
    if (!running || running.told || running.area !== areaOf(event.detail.elt)) return;
    var detail = event.detail;
    if (!detail.lengthComputable || !detail.total) return;
    if (detail.loaded >= detail.total) {
      show(running.area, null, running.area.dataset.waiting);
    } else {
      show(running.area, Math.floor((100 * detail.loaded) / detail.total), running.area.dataset.sending);
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    if (!running || running.area !== areaOf(event.detail.elt)) return;
    clearInterval(running.timer);
    running = null;
  });
})();
