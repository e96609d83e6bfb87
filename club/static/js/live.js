// Live pages: any element with data-live-url and data-live-version asks its URL
// every few seconds for "?version=<n>" (every data-live-every milliseconds where it says:
// the director's board, every second). The server answers 204 No Content while
// nothing changed, else the element's fresh HTML, which replaces it in place.
// Polling pauses while the tab is hidden and while someone is typing in a form
// inside the live area. The projector's panels ([data-cycle] > [data-panel])
// take turns by themselves. A sitting's clock ([data-countdown]) counts down by the
// server's time (below).
(function () {
  "use strict";

  var POLL_MS = 5000;
  var TICK_MS = 1000;  // the quickest poll, and the countdowns' step
  var CYCLE_MS = 12000;
  var inFlight = false;
  var panel = 0;
  var polledAt = {};  // by live URL: when it was last asked (the page's own timer)

  // A form the user has typed into is "dirty" until it is sent or replaced.
  document.addEventListener("input", function (event) {
    var form = event.target.form;
    if (form) form.dataset.dirty = "1";
  });
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (form) form.dataset.dirty = "1";
  });

  function busy(area) {
    var active = document.activeElement;
    if (active && area.contains(active) && active.matches("input, select, textarea")) return true;
    return area.querySelector("form[data-dirty]") !== null;
  }

  function showPanel(root) {
    var panels = root.querySelectorAll("[data-panel]");
    if (!panels.length) return;
    panels.forEach(function (el, index) {
      el.classList.toggle("active", index === panel % panels.length);
    });
  }

  function setUpCycles(root) {
    root.querySelectorAll("[data-cycle]").forEach(showPanel);
    if (root.matches && root.matches("[data-cycle]")) showPanel(root);
  }

  function swap(area, html) {
    if (busy(area)) return;  // keep what the organiser is typing; next poll will catch up
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    var fresh = template.content.firstElementChild;
    if (!fresh || !fresh.hasAttribute("data-live-url")) return;
    if (fresh.innerHTML === area.innerHTML) {  // only the token moved: keep the page as it is
      area.dataset.liveVersion = fresh.dataset.liveVersion;
      return;
    }
    setUpCycles(fresh);
    area.replaceWith(fresh);
    if (window.htmx) window.htmx.process(fresh);
    fresh.dispatchEvent(new CustomEvent("htmx:load", { bubbles: true }));
  }

  function pollOne(area) {
    var url = new URL(area.dataset.liveUrl, window.location.href);
    url.searchParams.set("version", area.dataset.liveVersion || "");
    return fetch(url.toString(), {
      headers: { "HX-Request": "true", "X-Live-Poll": "1" },
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (response) {
      serverTime(response);
      if (response.status !== 200) return null;  // 204: nothing changed
      return response.text();
    }).then(function (html) {
      if (html && document.body.contains(area)) swap(area, html);
    }).catch(function () { /* offline for a moment: try again next time */ });
  }

  function every(area) {
    return Math.max(TICK_MS, Number(area.dataset.liveEvery) || POLL_MS);
  }

  // ``all``: every live area now (the tab shown again, a page brought back), else those
  // whose time has come.
  function poll(all) {
    if (document.visibilityState !== "visible" || inFlight) return;
    var now = performance.now();
    var areas = Array.prototype.filter.call(
      document.querySelectorAll("[data-live-url][data-live-version]"),
      function (area) {
        var last = polledAt[area.dataset.liveUrl];
        return !busy(area) && (all === true || last === undefined || now - last >= every(area) - 50);
      }
    );
    if (!areas.length) return;
    areas.forEach(function (area) { polledAt[area.dataset.liveUrl] = now; });
    inFlight = true;
    Promise.all(areas.map(pollOne)).then(function () { inFlight = false; });
  }

  function cycle() {
    if (document.visibilityState !== "visible") return;
    panel += 1;
    setUpCycles(document);
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") poll(true);
  });

  // Back or Forward may bring back the copy of a page from before a write: a deal form
  // that htmx replaced in place still asks for the deal just recorded. Such a page asks
  // the server again as it is shown: a deal form outside a live area is loaded again,
  // a live area read again (and replaced if the game moved on). Not with no network: the
  // copy is then all there is, and a deal sent from it is told it was already recorded.
  window.addEventListener("pageshow", function (event) {
    var entries = window.performance && performance.getEntriesByType
      ? performance.getEntriesByType("navigation") : [];
    var backForward = event.persisted || (entries[0] && entries[0].type === "back_forward");
    if (!backForward || !navigator.onLine) return;
    var dealForm = document.querySelector("form.deal-form");
    if (dealForm && !dealForm.closest("[data-live-url]")) {
      window.location.reload();
      return;
    }
    document.querySelectorAll("[data-live-url] form[data-dirty]").forEach(function (form) {
      delete form.dataset.dirty;  // a copy's typing is not the reader's now
    });
    poll(true);
  });
  document.addEventListener("DOMContentLoaded", function () {
    setUpCycles(document);
    if (!document.querySelector("[data-live-url][data-live-version]")) return;
    var areas = document.querySelectorAll("[data-live-url][data-live-version]");
    areas.forEach(function (area) { polledAt[area.dataset.liveUrl] = performance.now(); });
    window.setInterval(poll, TICK_MS);
    // A countdown on a page kept for everyone needs the server's time: ask at once.
    if (document.querySelector("[data-countdown]:not([data-seconds-left])")) poll(true);
  });
  window.setInterval(cycle, CYCLE_MS);

  // A clock ([data-clock]) keeps the time between polls: hours and minutes, as served.
  function tick() {
    var now = new Date();
    var text = String(now.getHours()).padStart(2, "0") + ":" +
      String(now.getMinutes()).padStart(2, "0");
    document.querySelectorAll("[data-clock]").forEach(function (el) { el.textContent = text; });
  }
  window.setInterval(tick, 15000);
  // At once too, and after each swap: a page kept under its version (club.web.pages)
  // carries the time it was rendered, not the time it is read.
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:load", tick);

  // Countdowns ([data-countdown], club.web.countdown): the time left on a sitting's clock,
  // by the server's time, never the phone's date and time. A page rendered for its reader
  // (the board, a scorer's page) says how many seconds were left as it was rendered
  // (data-seconds-left): counted down by the page's own timer from when it came, and
  // started again from each fresh copy a poll brings. A page kept for everyone (the
  // projector) says only when time is up (data-ends-at): counted from the server's time,
  // the Date of the answers to its polls. A copy the phone kept with no network says the
  // time it is up, as served, and counts nothing: its seconds are long gone.
  var seenAt = new WeakMap();  // countdown -> the page's timer when it came
  var server = null;  // {ms: the server's time, at: the page's timer when it was read}

  function serverTime(response) {
    var date = Date.parse(response.headers.get("Date") || "");
    // The Date is to the second: the middle of that second is nearest on average.
    if (!isNaN(date)) server = {ms: date + 500, at: performance.now()};
  }

  function secondsLeft(el) {
    if (document.documentElement.dataset.keptAt) return null;
    if (el.dataset.secondsLeft !== undefined) {
      if (!seenAt.has(el)) seenAt.set(el, performance.now());
      return Number(el.dataset.secondsLeft) - (performance.now() - seenAt.get(el)) / 1000;
    }
    if (server && el.dataset.endsAt) {
      return (Number(el.dataset.endsAt) - server.ms - (performance.now() - server.at)) / 1000;
    }
    return null;
  }

  function clockText(seconds) {
    var hours = Math.floor(seconds / 3600), minutes = Math.floor(seconds % 3600 / 60);
    var rest = String(seconds % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + rest : minutes + ":" + rest;
  }

  function countDown() {
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var left = secondsLeft(el);
      var running = el.querySelector("[data-countdown-running]");
      var up = el.querySelector("[data-countdown-up]");
      var ends = el.querySelector("[data-countdown-ends]");
      if (left === null) {  // the time it is up, as served: nothing counted
        if (document.documentElement.dataset.keptAt && running && up && ends) {
          running.hidden = true; up.hidden = true; ends.hidden = false;
        }
        return;
      }
      left = Math.max(0, Math.ceil(left - 0.001));
      var time = el.querySelector("[data-countdown-time]");
      if (time) time.textContent = clockText(left);
      if (running) running.hidden = left === 0;
      if (up) up.hidden = left > 0;
      if (ends) ends.hidden = left === 0;
      el.classList.toggle("is-up", left === 0);
    });
  }
  window.setInterval(countDown, TICK_MS / 4);
  document.addEventListener("DOMContentLoaded", countDown);
  document.addEventListener("htmx:load", countDown);
})();
