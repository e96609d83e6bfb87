// Live pages: any element with data-live-url and data-live-version asks its URL
// every few seconds for "?version=<n>". The server answers 204 No Content while
// nothing changed, else the element's fresh HTML, which replaces it in place.
// Polling pauses while the tab is hidden and while someone is typing in a form
// inside the live area. The projector's panels ([data-cycle] > [data-panel])
// take turns by themselves.
(function () {
  "use strict";

  var POLL_MS = 5000;
  var CYCLE_MS = 12000;
  var inFlight = false;
  var panel = 0;

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
      if (response.status !== 200) return null;  // 204: nothing changed
      return response.text();
    }).then(function (html) {
      if (html && document.body.contains(area)) swap(area, html);
    }).catch(function () { /* offline for a moment: try again next time */ });
  }

  function poll() {
    if (document.visibilityState !== "visible" || inFlight) return;
    var areas = Array.prototype.filter.call(
      document.querySelectorAll("[data-live-url][data-live-version]"),
      function (area) { return !busy(area); }
    );
    if (!areas.length) return;
    inFlight = true;
    Promise.all(areas.map(pollOne)).then(function () { inFlight = false; });
  }

  function cycle() {
    if (document.visibilityState !== "visible") return;
    panel += 1;
    setUpCycles(document);
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") poll();
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
    poll();
  });
  document.addEventListener("DOMContentLoaded", function () {
    setUpCycles(document);
    if (!document.querySelector("[data-live-url][data-live-version]")) return;
    window.setInterval(poll, POLL_MS);
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
})();
