// The phone at the table without the network (club/web/installable.py, sw.js).
// - Installs the service worker, which keeps the pages visited and the static files.
// - A page drawn from the phone's copy (no network) says when it was kept, and its deal
//   form gets a fresh one-time key and the next deal's number after those kept.
// - Deals kept on the phone (queue.js) are listed above the deal form of their game,
//   "waiting to send", and sent by themselves once the network answers: in the order
//   they were kept, one at a time, each with its own one-time key, so a deal whose
//   answer was lost is answered from that key and never counted twice. A deal the
//   server refuses (the game moved on: another phone recorded it, a correction, the
//   game ended) stays, with the server's words, to put back in the form or drop.
(function () {
  "use strict";
  var root = document.documentElement;
  var RETRY_MS = 10000;
  var sending = false;
  var words = {};

  function say(name, values) {
    var text = words[name] || name;
    Object.keys(values || {}).forEach(function (key) {
      text = text.split("{" + key + "}").join(values[key]);
    });
    return text;
  }

  function uuid() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return "10000000-1000-4000-8000-100000000000".replace(/[018]/g, function (c) {
      return (c ^ (window.crypto.getRandomValues(new Uint8Array(1))[0] & (15 >> (c / 4)))).toString(16);
    });
  }

  function field(entry, name) {
    for (var i = 0; i < entry.fields.length; i += 1) {
      if (entry.fields[i][0] === name) return entry.fields[i][1];
    }
    return "";
  }

  function optionText(form, name, value) {
    var select = form && form.querySelector("select[name=" + name + "]");
    var option = select && Array.prototype.find.call(select.options, function (o) { return o.value === value; });
    return option ? option.textContent.trim() : value;
  }

  // What the entry says, in the form's own words where the form is on the page.
  function summary(entry, form) {
    var piles = entry.fields.filter(function (pair) { return pair[0].indexOf("points_") === 0; })
      .map(function (pair) { return pair[1] || "0"; }).join(" / ");
    var declarer = field(entry, "declarer");
    // Everyone passed: in the form's own words for it (a form of play without it never
    // sends one).
    if (!declarer || declarer === "pass") {
      return say("passed", {passed: optionText(form, "declarer", "pass"), piles: piles});
    }
    return say("contract", {
      declarer: optionText(form, "declarer", declarer),
      bid: field(entry, "bid"),
      trump: optionText(form, "trump", field(entry, "trump")),
      piles: piles
    });
  }

  function dealForm() {
    return document.querySelector("form.deal-form[action$='/deals/']");
  }

  function here(entry) {
    return entry.page === window.location.pathname;
  }

  function show(entries) {
    var form = dealForm();
    var mine = entries.filter(here);
    var list = document.getElementById("offline-queue");
    if (!mine.length) {
      if (list) list.remove();
      return;
    }
    if (!list) {
      list = document.createElement("section");
      list.id = "offline-queue";
      list.className = "card offline-queue";
      list.setAttribute("aria-live", "polite");
      var anchor = form || document.querySelector("main > *");
      anchor.parentNode.insertBefore(list, anchor);
    }
    list.replaceChildren();
    var heading = document.createElement("h2");
    heading.textContent = say("heading", {count: mine.length});
    list.appendChild(heading);
    var items = document.createElement("ol");
    mine.forEach(function (entry) {
      var item = document.createElement("li");
      item.className = "queued " + entry.state;
      item.dataset.queued = entry.id;
      var line = document.createElement("p");
      var name = document.createElement("b");
      name.textContent = say("deal", {number: entry.number});
      line.appendChild(name);
      line.appendChild(document.createTextNode(" " + summary(entry, form) + " · "));
      var state = document.createElement("span");
      state.className = "state";
      state.textContent = entry.state === "refused" ? say("refused") : say("waiting");
      line.appendChild(state);
      item.appendChild(line);
      if (entry.state === "refused") {
        var answer = document.createElement("p");
        answer.className = "error";
        answer.setAttribute("role", "alert");
        answer.textContent = entry.answer || say("refused");
        item.appendChild(answer);
        var buttons = document.createElement("p");
        buttons.className = "actions";
        var fix = document.createElement("button");
        fix.type = "button";
        fix.textContent = say("fix");
        fix.addEventListener("click", function () { putBack(entry); });
        var drop = document.createElement("button");
        drop.type = "button";
        drop.className = "danger";
        drop.textContent = say("drop");
        drop.addEventListener("click", function () {
          if (window.confirm(say("drop_confirm", {number: entry.number}))) {
            window.clubQueue.remove(entry.id).then(refresh);
          }
        });
        buttons.appendChild(fix);
        buttons.appendChild(drop);
        item.appendChild(buttons);
      }
      items.appendChild(item);
    });
    list.appendChild(items);
  }

  // A refused entry goes back into the form to be fixed and sent again (a new key:
  // the old one holds the refusal), and leaves the queue.
  function putBack(entry) {
    var form = dealForm();
    if (!form) return;
    entry.fields.forEach(function (pair) {
      if (pair[0] === "csrfmiddlewaretoken" || pair[0] === "idempotency_key" || pair[0] === "number") return;
      var inputs = form.querySelectorAll("[name='" + pair[0] + "']");
      inputs.forEach(function (input) {
        if (input.type === "radio" || input.type === "checkbox") input.checked = input.value === pair[1];
        else input.value = pair[1];
      });
    });
    var key = form.querySelector("[name=idempotency_key]");
    if (key) key.value = uuid();
    window.clubQueue.remove(entry.id).then(refresh).then(function () {
      form.dispatchEvent(new Event("change", {bubbles: true}));
      var first = form.querySelector("select, input:not([type=hidden])");
      if (first) first.focus();
    });
  }

  // A page drawn from the phone's copy (its form's key may have been used since), or a
  // form whose deal was just kept: a new key, and the number after the deals kept.
  function freshForm(entries, kept) {
    var form = dealForm();
    if (!form || !(root.dataset.keptAt || kept)) return;
    var key = form.querySelector("[name=idempotency_key]");
    if (key) key.value = uuid();
    if (kept) {
      form.querySelectorAll("input[name=bid], input[data-pile]").forEach(function (input) { input.value = ""; });
      form.dispatchEvent(new Event("change", {bubbles: true}));
      delete form.dataset.dirty;
    }
    var number = form.querySelector("[name=number]");
    var numbers = entries.filter(here).map(function (entry) { return entry.number; });
    if (number && numbers.length) {
      var next = Math.max(Number(number.value) || 0, Math.max.apply(null, numbers) + 1);
      number.value = String(next);
      // The heading and the button name the deal: their number moves with it.
      [document.querySelector("[data-deal-number]"), form.querySelector("button[type=submit]")]
        .forEach(function (el) {
          if (el) el.textContent = el.textContent.replace(/\d+/, String(next));
        });
    }
  }

  // Says, at the top of the page, that there is no network (and, for a page drawn from
  // the phone's copy, when that copy was kept).
  function note(show) {
    var shown = document.getElementById("kept-note");
    if (!show && !root.dataset.keptAt) {
      if (shown) shown.remove();
      return;
    }
    if (!shown) {
      shown = document.createElement("p");
      shown.id = "kept-note";
      shown.className = "kept-note";
      shown.setAttribute("role", "status");
      var main = document.querySelector("main");
      if (main) main.insertBefore(shown, main.firstChild);
    }
    var at = new Date(root.dataset.keptAt || "");
    shown.textContent = isNaN(at) ? say("no_network") : say("kept_at", {
      time: at.toLocaleTimeString(root.lang || undefined, {hour: "2-digit", minute: "2-digit"})
    });
  }

  function answerWords(html) {
    var page = new DOMParser().parseFromString(html, "text/html");
    var found = page.querySelectorAll("#deal-entry .errors, .deal-form .errors, .deal-form .error, .refused p");
    var text = Array.prototype.map.call(found, function (el) { return el.textContent.replace(/\s+/g, " ").trim(); })
      .filter(Boolean).join(" ");
    return text || "";
  }

  function sendOne(entry) {
    var body = new URLSearchParams();
    entry.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    return fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: {"HX-Request": "true", "X-Club-Queued": "1"}
    }).then(function (response) {
      if (response.headers.get("Club-Deal-Sent")) return window.clubQueue.remove(entry.id).then(function () { return "sent"; });
      if (response.status >= 500) return "later";  // the server asks for it again (503)
      return response.text().then(function (html) {
        entry.state = "refused";
        entry.answer = answerWords(html) || say("refused");
        return window.clubQueue.put(entry).then(function () { return "refused"; });
      });
    }, function () { return "later"; });  // still no network
  }

  function send() {
    if (sending || !window.clubQueue || !controlled()) return Promise.resolve();
    sending = true;
    var sentAny = false;
    var refusedAny = false;
    return window.clubQueue.all().then(function (entries) {
      var waiting = entries.filter(function (entry) { return entry.state === "waiting"; });
      // In order, one at a time; a deal waits while one kept before it is refused or unsent.
      function next(index) {
        if (index >= waiting.length) return "done";
        if (entries.some(function (e) { return e.page === waiting[index].page && e.id < waiting[index].id && e.state === "refused"; })) {
          return next(index + 1);
        }
        return sendOne(waiting[index]).then(function (outcome) {
          if (outcome === "sent") sentAny = true;
          if (outcome === "refused") refusedAny = true;
          if (outcome === "later") return "later";
          return next(index + 1);
        });
      }
      return next(0);
    }).then(function () {
      sending = false;
      return window.clubQueue.all();
    }).then(function (entries) {
      if (sentAny && !entries.some(here)) {
        window.location.replace(window.location.pathname + window.location.search);
        return;
      }
      show(entries);
      // The game moved on: show it as the club has it now, the refused deals above it.
      if ((sentAny || refusedAny) && window.htmx && document.getElementById("live")) {
        window.htmx.ajax("GET", window.location.pathname, {target: "#live", select: "#live", swap: "outerHTML"});
      }
    }, function () { sending = false; });
  }

  function controlled() {
    return "serviceWorker" in navigator && !!navigator.serviceWorker.controller;
  }

  function refresh(kept) {
    if (!window.clubQueue || !controlled()) return Promise.resolve();
    return window.clubQueue.all().then(function (entries) {
      freshForm(entries, kept);
      show(entries);
      return entries;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var source = document.getElementById("offline-words");
    if (source) {
      try { words = JSON.parse(source.textContent); } catch (error) { words = {}; }
    }
    note(!navigator.onLine);
    if ("serviceWorker" in navigator && root.dataset.serviceWorker) {
      navigator.serviceWorker.register(root.dataset.serviceWorker, {scope: "/"}).catch(function () {});
    }
    window.addEventListener("online", function () { note(false); send(); });
    window.addEventListener("offline", function () { note(true); });
    start();
    // A first visit: the worker takes the page over once it is installed.
    if ("serviceWorker" in navigator) navigator.serviceWorker.addEventListener("controllerchange", start);
  });

  // Deals are kept on the phone only by the service worker: a page it does not control
  // (the first visit, or a browser that runs none) has none to show or send, and opens
  // no database; it starts once the worker takes it over.
  var started = false;
  function start() {
    if (started || !window.indexedDB || !window.clubQueue || !controlled()) return;
    started = true;
    refresh().then(function (entries) {
      if (entries.length && navigator.onLine) send();
    });
    window.setInterval(function () {
      if (navigator.onLine) {
        window.clubQueue.all().then(function (entries) {
          if (entries.some(function (entry) { return entry.state === "waiting"; })) send();
        });
      }
    }, RETRY_MS);
  }
  // The form the queue advanced is replaced when htmx swaps the page in: show it again.
  document.addEventListener("htmx:load", function () { refresh(); });
  // The service worker kept the deal just sent (no network): list it, clear the form.
  document.addEventListener("club-deal-kept", function () {
    note(true);
    refresh(true).then(function () {
      var list = document.getElementById("offline-queue");
      if (list) list.scrollIntoView({block: "nearest"});
    });
  });
})();
