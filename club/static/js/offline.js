// The phone at the table without the network (club/web/installable.py, sw.js).
// - Installs the service worker, which keeps the pages visited and the static files.
// - A deal whose sending fails for want of a network is kept on the phone (queue.js): by
//   the service worker where one runs; by the open page itself where none can (the
//   venue's plain HTTP, where browsers run no service worker, or a first visit). Such a
//   page cannot be opened again with no network, and says so under its deal form.
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
  var SEND_WAIT_MS = 15000;
  var sending = false;
  // The swap of the game as the club has it now, after deals were sent or refused.
  var swapped = Promise.resolve();

  // The page's words (entry.js reads them).
  function say(name, values) { return window.clubEntry.say(name, values); }

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

  // The words the form shows for a value: its key's (the deal entry's keys), else the value.
  function optionText(form, name, value) {
    var key = form && Array.prototype.find.call(form.querySelectorAll("input[name=" + name + "]"),
      function (input) { return input.value === value; });
    var label = key && key.closest("label");
    var words = label && (label.querySelector(".key-name") || label);
    return words ? words.textContent.replace(/\s+/g, " ").trim() : value;
  }

  // What the entry says, in the form's own words where the form is on the page.
  function summary(entry, form) {
    var piles = entry.fields.filter(function (pair) { return pair[0].indexOf("points_") === 0; })
      .map(function (pair) { return pair[1] || "0"; }).join(" / ");
    var declarer = field(entry, "declarer");
    if (declarer.indexOf("thani:") === 0 || (declarer !== "pass" && field(entry, "bid") === "thani")) {
      return optionText(form, "declarer", declarer.replace("thani:", "")) + " · " + optionText(form, "bid", "thani") +
        " · " + say(field(entry, "thani_made") === "yes" ? "made" : "failed");
    }
    // Everyone passed: in the form's own words for it (a form of play without it never
    // sends one).
    if (!declarer || declarer === "pass") {
      return say("passed", {passed: optionText(form, "declarer", "pass"), piles: piles});
    }
    return say("contract", {
      declarer: optionText(form, "declarer", declarer),
      bid: field(entry, "bid"),
      // Doubled or redoubled is said with the trumps: what was entered, all of it.
      trump: optionText(form, "trump", field(entry, "trump")) +
        (field(entry, "doubling") && field(entry, "doubling") !== "none"
          ? " · " + optionText(form, "doubling", field(entry, "doubling")) : ""),
      piles: piles
    });
  }

  function dealForm() {
    return document.querySelector("form.deal-form[action$='/deals/']");
  }

  function here(entry) {
    return entry.page === window.location.pathname;
  }

  function element(tag, className, text) {
    var made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function phoneRules() {
    var source = document.getElementById("phone-rules");
    if (!source || !window.clubRules) return null;
    try { return JSON.parse(source.textContent); } catch (error) { return null; }
  }

  // What each waiting deal settles to on the phone's count (rules.js), in the order kept,
  // from the game as this page last had it, each from the state the one before left; and
  // that state after them all. A deal not next in line (one before it refused, or not
  // worked out) is left to the club's answer.
  function workOut(mine) {
    var wire = phoneRules();
    var state = wire && wire.state;
    var worked = {};
    var ended = false;
    mine.forEach(function (entry) {
      if (!state || entry.state !== "waiting" || entry.number !== state.deals_played + 1) {
        state = null;
        return;
      }
      try {
        var deal = window.clubRules.dealFromFields(
          {rules: wire.rules, state: state, seats: wire.seats},
          function (name) { return field(entry, name); });
        var settled = window.clubRules.settle(wire.rules, state, deal);
        worked[entry.id] = settled;
        ended = settled.finished;
        state = settled.finished ? null : settled.after;
      } catch (error) {  // a deal the rules refuse (error.code), or one the phone cannot read
        worked[entry.id] = {cannot: true};
        state = null;
      }
    });
    var any = mine.some(function (e) { return worked[e.id]; });
    return {wire: wire, worked: worked, after: any ? state : null, ended: any && ended && !state};
  }

  // "The phone's count: made · Lions: +4 → 16 · Tigers: -4 → 8", and what else it brings.
  function countLines(settled, wire) {
    var deal = settled.settlement;
    var lines = [say("phone_count", {outcome: window.clubEntry.outcome(deal, wire.rules, wire.teams)})];
    deal.kodi.forEach(function (team) {
      lines.push(say("kodi", {team: wire.teams[team], tables: wire.rules.tables_per_team}));
    });
    deal.eliminated.forEach(function (team) { lines.push(say("out", {team: wire.teams[team]})); });
    if (settled.finished) lines.push(say("ends"));
    return lines;
  }

  function fixOrDrop(entry) {
    var buttons = element("p", "actions");
    var fix = element("button", "", say("fix"));
    fix.type = "button";
    fix.addEventListener("click", function () { putBack(entry); });
    var drop = element("button", "danger", say("drop"));
    drop.type = "button";
    drop.addEventListener("click", function () {
      if (window.confirm(say("drop_confirm", {number: entry.number}))) {
        window.clubQueue.remove(entry.id).then(refresh);
      }
    });
    buttons.appendChild(fix);
    buttons.appendChild(drop);
    return buttons;
  }

  function show(entries) {
    var form = dealForm();
    var mine = entries.filter(here);
    var list = document.getElementById("offline-queue");
    if (!mine.length) {
      if (list) list.remove();
      dealerLine(null);
      if (window.clubPhoneState) {
        window.clubPhoneState = null;
        if (window.clubEntry && window.clubEntry.refresh) window.clubEntry.refresh();
      }
      return;
    }
    if (!list) {
      list = element("section", "card offline-queue");
      list.id = "offline-queue";
      list.setAttribute("aria-live", "polite");
      var anchor = form || document.querySelector("main > *");
      anchor.parentNode.insertBefore(list, anchor);
    }
    list.replaceChildren();
    list.appendChild(element("h2", "", say("heading", {count: mine.length})));
    var worked = workOut(mine);
    var items = element("ol");
    mine.forEach(function (entry) {
      var item = element("li", "queued " + entry.state);
      item.dataset.queued = entry.id;
      var line = element("p");
      line.appendChild(element("b", "", say("deal", {number: entry.number})));
      line.appendChild(document.createTextNode(" " + summary(entry, form) + " · "));
      line.appendChild(element("span", "state", entry.state === "refused" ? say("refused") : say("waiting")));
      item.appendChild(line);
      var settled = worked.worked[entry.id];
      if (settled && settled.cannot) {
        item.appendChild(element("p", "error", say("cannot")));
        item.appendChild(fixOrDrop(entry));
      } else if (settled) {
        countLines(settled, worked.wire).forEach(function (text, index) {
          item.appendChild(element("p", index ? "count-news" : "phone-count", text));
        });
      }
      if (entry.state === "refused") {
        var answer = element("p", "error", entry.answer || say("refused"));
        answer.setAttribute("role", "alert");
        item.appendChild(answer);
        item.appendChild(fixOrDrop(entry));
      }
      items.appendChild(item);
    });
    list.appendChild(items);
    dealerLine(worked);
    // The deal being entered is previewed from where the deals kept here leave the game.
    window.clubPhoneState = worked.after && !worked.ended ? worked.after : null;
    if (window.clubEntry && window.clubEntry.refresh) window.clubEntry.refresh();
  }

  // Who deals next, in the card above the form: after the deals kept here, as the phone
  // counts them (the club's line comes back once none can be worked out).
  function dealerLine(worked) {
    var line = document.querySelector("[data-dealer-line]");
    if (!line) return;
    var after = worked && worked.after;
    if (worked && worked.ended) {  // the deals kept here end the game: no one deals next
      if (!line.classList.contains("phone-count")) line.dataset.club = line.innerHTML;
      line.classList.add("phone-count");
      line.textContent = say("ends");
      return;
    }
    if (!after) {
      if (line.classList.contains("phone-count")) {
        line.innerHTML = line.dataset.club;  // the server's own words, as it wrote them
        line.classList.remove("phone-count");
      }
      return;
    }
    if (!line.classList.contains("phone-count")) line.dataset.club = line.innerHTML;
    line.classList.add("phone-count");
    var wire = worked.wire;
    var bidder = window.clubRules.nextSeat(wire.rules, after, after.dealer);
    line.textContent = say("next_dealer", {dealer: wire.players[after.dealer], bidder: wire.players[bidder]});
  }

  // A refused entry goes back into the form to be fixed and sent again (a new key:
  // the old one holds the refusal), and leaves the queue. Once the game as the club has
  // it now has been swapped in (send, above): filled before, the form would be replaced
  // by an empty one, and what the scorer typed lost.
  function putBack(entry) {
    swapped.then(function () {
      var form = dealForm();
      if (!form) return;
      window.clubEntry.fill(form, entry.fields);
      var key = form.querySelector("[name=idempotency_key]");
      if (key) key.value = uuid();
      return window.clubQueue.remove(entry.id).then(function () { return refresh(); }).then(function () {
        var first = form.querySelector("input[name=declarer]:checked") || form.querySelector("input[name=declarer]");
        if (first) first.focus();
      });
    });
  }

  // A page drawn from the phone's copy (its form's key may have been used since), or a
  // form whose deal was just kept: a new key. Always: the number after the deals kept
  // here, or the page's own once none is (one put back in the form leaves the queue).
  function freshForm(entries, kept) {
    var form = dealForm();
    if (!form) return;
    if (root.dataset.keptAt || kept) {
      var key = form.querySelector("[name=idempotency_key]");
      if (key) key.value = uuid();
    }
    if (kept) {  // the next deal starts empty, as after a deal recorded online
      if (window.clubEntry && window.clubEntry.reset) window.clubEntry.reset(form);
      delete form.dataset.dirty;
    }
    var number = form.querySelector("[name=number]");
    if (!number) return;
    if (!form.dataset.pageNumber) form.dataset.pageNumber = number.value;
    var numbers = entries.filter(here).map(function (entry) { return entry.number; });
    var next = Number(form.dataset.pageNumber) || 0;
    if (numbers.length) next = Math.max(next, Math.max.apply(null, numbers) + 1);
    if (String(next) === number.value) return;
    number.value = String(next);
    // The heading and the button name the deal: their number moves with it.
    [document.querySelector("[data-deal-number]"), form.querySelector("button[type=submit]")]
      .forEach(function (el) {
        if (el) el.textContent = el.textContent.replace(/\d+/, String(next));
      });
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
    shown.textContent = isNaN(at) ? say(openOnly() ? "no_network_open" : "no_network") : say("kept_at", {
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

  // The CSRF token as it is now: logging in or out on the phone since the deal was kept
  // made a new one (Django's cookie), and the kept form's would be refused.
  function csrfNow() {
    var found = document.cookie.split(/;\s*/).filter(function (c) { return c.indexOf("csrftoken=") === 0; })[0];
    if (found) return decodeURIComponent(found.slice("csrftoken=".length));
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : null;
  }

  function sendOne(entry) {
    var body = new URLSearchParams();
    var csrf = csrfNow();
    entry.fields.forEach(function (pair) {
      body.append(pair[0], pair[0] === "csrfmiddlewaretoken" && csrf ? csrf : pair[1]);
    });
    return fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: {"HX-Request": "true", "X-Club-Queued": "1"}
    }).then(function (response) {
      if (response.headers.get("Club-Deal-Sent")) return window.clubQueue.remove(entry.id).then(function () { return "sent"; });
      if (response.status >= 500) return "later";  // the server asks for it again (503)
      // Sent to the log-in page: a deal of an organiser's game page, with nobody logged
      // in since. It waits for an organiser, untouched.
      if (response.redirected) return "later";
      return response.text().then(function (html) {
        entry.state = "refused";
        entry.answer = answerWords(html) || say("refused");
        return window.clubQueue.put(entry).then(function () { return "refused"; });
      });
    }, function () { return "later"; });  // still no network
  }

  function send() {
    if (sending || !queueReady()) return Promise.resolve();
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
        swapped = Promise.resolve(
          window.htmx.ajax("GET", window.location.pathname, {target: "#live", select: "#live", swap: "outerHTML"})
        ).catch(function () {});
      }
    }, function () { sending = false; });
  }

  function controlled() {
    return "serviceWorker" in navigator && !!navigator.serviceWorker.controller;
  }

  // Deals are kept in IndexedDB, which every browser has, service worker or not.
  function queueReady() {
    return !!(window.indexedDB && window.clubQueue);
  }

  // No service worker can ever run here (plain HTTP off this computer): the page keeps the
  // deals itself while it is open, and says that opening it again needs the network.
  function openOnly() {
    return !("serviceWorker" in navigator);
  }

  function dealPost(elt) {
    return !!(elt && elt.matches && elt.matches("form.deal-form[action$='/deals/']"));
  }

  // Where no service worker answers for the page, a deal the network did not carry (no
  // answer at all, or none within SEND_WAIT_MS) is kept here, with its one-time key: if
  // it did reach the club, sending it again is answered from that key, never counted twice.
  function keepHere(event) {
    var form = event.detail.elt;
    if (!dealPost(form) || controlled() || !queueReady()) return;
    var sent = (event.detail.requestConfig && event.detail.requestConfig.formData) || new FormData(form);
    var fields = [];
    sent.forEach(function (value, name) { fields.push([name, String(value)]); });
    if (!sent.get("idempotency_key")) fields.push(["idempotency_key", uuid()]);
    var url = new URL(form.action, window.location.href).pathname;
    window.clubQueue.add({
      url: url,
      page: url.replace(/deals\/$/, ""),
      fields: fields,
      number: Number(sent.get("number")) || 0,
      queuedAt: Date.now(),
      state: "waiting"
    }).then(function () {
      document.dispatchEvent(new CustomEvent("club-deal-kept"));
    });
  }
  document.addEventListener("htmx:sendError", keepHere);
  document.addEventListener("htmx:timeout", keepHere);
  document.addEventListener("htmx:configRequest", function (event) {
    if (dealPost(event.detail.elt) && !controlled() && queueReady()) event.detail.timeout = SEND_WAIT_MS;
  });

  // Calling the director (scorer.html's #table-status) needs the network now: a call is
  // never kept on the phone to send later, as a deal is, nor read from a kept copy. With
  // no network (none known, none answering, or a copy the phone kept) the page says so:
  // call the director by voice.
  function callForm(elt) {
    return !!(elt && elt.closest && elt.closest("form[data-director-call]"));
  }
  function noCall(shown) {
    var note = document.querySelector("#table-status [data-call-offline]");
    if (note) note.hidden = !shown;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!callForm(event.detail.elt) || navigator.onLine) return;
    event.preventDefault();
    noCall(true);
  });
  document.addEventListener("htmx:sendError", function (event) {
    if (callForm(event.detail.elt)) noCall(true);
  });
  document.addEventListener("htmx:timeout", function (event) {
    if (callForm(event.detail.elt)) noCall(true);
  });
  function callNote() {
    noCall(!navigator.onLine || !!root.dataset.keptAt);
  }
  window.addEventListener("online", callNote);
  window.addEventListener("offline", callNote);
  document.addEventListener("DOMContentLoaded", callNote);
  document.addEventListener("htmx:load", callNote);

  // Under the deal form of a page no service worker can keep: it works with no network
  // while it stays open, not once closed.
  function openOnlyHint() {
    var form = dealForm();
    if (!form || !openOnly() || document.getElementById("open-only")) return;
    var hint = element("p", "hint open-only", say("open_only"));
    hint.id = "open-only";
    form.parentNode.insertBefore(hint, form.nextSibling);
  }

  function refresh(kept) {
    openOnlyHint();
    if (!queueReady()) return Promise.resolve();
    return window.clubQueue.all().then(function (entries) {
      freshForm(entries, kept);
      show(entries);
      return entries;
    });
  }

  // Logging out on a shared phone takes every page kept on it (club/web/kept.py), never a
  // deal still waiting: those stay, to be sent once the network is back. Say so first.
  function warnBeforeLogout(form, count) {
    var shown = document.getElementById("logout-warning");
    if (shown) shown.remove();
    var box = element("section", "card logout-warning");
    box.id = "logout-warning";
    box.setAttribute("role", "alertdialog");
    box.setAttribute("aria-labelledby", "logout-warning-text");
    var text = element("p", "", count === 1 ? say("logout_one") : say("logout_many", {count: count}));
    text.id = "logout-warning-text";
    box.appendChild(text);
    var actions = element("p", "actions");
    var leave = element("button", "primary", say("logout_anyway"));
    leave.type = "button";
    leave.addEventListener("click", function () { form.dataset.confirmed = "1"; form.submit(); });
    var stay = element("button", "", say("logout_stay"));
    stay.type = "button";
    stay.addEventListener("click", function () { box.remove(); });
    actions.appendChild(leave);
    actions.appendChild(stay);
    box.appendChild(actions);
    var main = document.querySelector("main");
    if (main) main.insertBefore(box, main.firstChild);
    leave.focus();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-logout") || form.dataset.confirmed) return;
    if (!queueReady()) return;
    event.preventDefault();
    window.clubQueue.all().then(function (entries) {
      if (entries.length) return warnBeforeLogout(form, entries.length);
      form.dataset.confirmed = "1";
      form.submit();
    }, function () { form.dataset.confirmed = "1"; form.submit(); });
  });

  document.addEventListener("DOMContentLoaded", function () {
    // The logged-out page: the worker drops the pages it kept (it does on the logout's own
    // answer too; this covers a logout it did not see).
    if (document.querySelector("[data-forget-pages]") && controlled()) {
      navigator.serviceWorker.controller.postMessage({type: "club-forget-pages"});
    }
    note(!navigator.onLine);
    if ("serviceWorker" in navigator && root.dataset.serviceWorker) {
      navigator.serviceWorker.register(root.dataset.serviceWorker, {scope: "/"}).catch(function () {});
    }
    window.addEventListener("online", function () { note(false); send(); });
    window.addEventListener("offline", function () { note(true); });
    start();
  });

  // Every page shows and sends the deals kept on this phone for it, whether the service
  // worker or the page itself kept them.
  var started = false;
  function start() {
    if (started || !queueReady()) return;
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
