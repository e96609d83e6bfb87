// The deal entry on the phone: every check as the keys are tapped, in the server's words.
// checkEntry() is a line-by-line port of club/scoring/entry.py's read_entry(), fed the
// game's bounds and the messages in the reader's language (the form's "phone-entry" JSON);
// tests/scoring/test_phone_entry.py runs both on the same random entries and fails on any
// difference in the answer or its words. The server still checks everything.
// On the page it also shows only what the contract needs (a thani: made or failed; all
// passed: the piles), fills in the last pile, moves on to the next pile once one is
// typed, folds a group of keys once one is chosen (a phone's screen holds the rest), and
// previews what the deal settles to (rules.js) above the button that records it.
// Plain ES5: it runs in the browser (window.clubEntry) and in Node (module.exports).
(function (root) {
  "use strict";
  var TOTAL_POINTS = 56;
  var WHOLE = /^-?\d{1,9}$/;

  // Who sits where, and the trumps and doublings there are: rules.js's, loaded before this
  // file on the page, required in Node.
  var rulesJs = typeof module === "object" && module.exports ? require("./rules.js") : root.clubRules;
  var seatOrder = rulesJs.seatOrder;
  var TRUMPS = rulesJs.trumps;
  var DOUBLINGS = rulesJs.doublings;

  // The digits a phone's keyboard may type besides 0-9 (Devanagari, Malayalam, Thai), read
  // as entry.py reads them; and the whitespace both sides strip.
  var DIGITS = [0x966, 0xd66, 0xe50];
  function asciiDigits(text) {
    return text.replace(/[\u0966-\u096f\u0d66-\u0d6f\u0e50-\u0e59]/g, function (digit) {
      var code = digit.charCodeAt(0);
      for (var i = 0; i < DIGITS.length; i += 1) {
        if (code >= DIGITS[i] && code <= DIGITS[i] + 9) return String(code - DIGITS[i]);
      }
      return digit;
    });
  }
  function strip(text) { return text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, ""); }

  function whole(text) {
    text = asciiDigits(text);
    return WHOLE.test(text) ? Number(text) : null;
  }

  // An entry of the deal form (get(name) gives a field's text): {entry} when every check
  // passes, else {errors: [{code, field, params}]}, in the order read_entry finds them.
  function checkEntry(wire, get) {
    var rules = wire.rules, seats = wire.seats, inPlay = wire.in_play;
    var errors = [];
    function text(name) {
      var value = get(name);
      return typeof value === "string" ? strip(value) : "";
    }
    function refuse(code, field, params) { errors.push({code: code, field: field, params: params || {}}); }

    var declarer = text("declarer"), bidText = text("bid");
    var oldThani = declarer.indexOf("thani:") === 0;
    var player = oldThani ? declarer.slice(6) : declarer;
    var playsThani = rules.thani !== null && rules.thani !== undefined;
    var thani = (oldThani || bidText === "thani") && playsThani;
    var kind = declarer === "pass" ? "pass" : thani ? "thani" : "bid";

    var teamCount = rules.team_size ? Math.floor(seats.length / rules.team_size) : 0;
    var order = seatOrder(teamCount, rules.team_size);
    var seat = null;
    if (declarer === "") {
      refuse(rules.all_pass ? "declarer_or_pass" : "declarer", "declarer");
    } else if (declarer === "pass") {
      if (!rules.all_pass) refuse("must_open", "declarer", {bid: rules.min_bid});
    } else if (seats.indexOf(player) === -1) {
      refuse("seat", "declarer");
    } else {
      seat = seats.indexOf(player);
      var team = order[seat][0];
      if (inPlay.indexOf(team) === -1) refuse(thani ? "thani_out" : "declarer_out", "declarer", {team: team});
    }
    if ((oldThani || bidText === "thani") && !playsThani) {
      refuse("no_thani", oldThani ? "declarer" : "bid");
    } else if (thani && kind === "pass" && rules.all_pass) {
      refuse("thani_pass", "bid");
    }

    var trump = text("trump"), doubling = text("doubling") || "none", madeText = text("thani_made");
    if (DOUBLINGS.indexOf(doubling) === -1) refuse("doubling", "doubling");
    var bid = null, piles = null;
    if (kind === "thani") {
      if (bidText !== "" && bidText !== "thani") refuse("thani_alone", "bid");
      if (trump) refuse("thani_alone", "trump");
      if (doubling === "double" || doubling === "redouble") refuse("thani_doubled", "doubling");
      if (madeText !== "yes" && madeText !== "no") refuse("thani_made", "thani_made");
      inPlay.forEach(function (team) {
        if (text("points_" + team)) refuse("thani_alone", "points_" + team);
      });
    } else {
      if (madeText) refuse("not_thani", "thani_made");
      if (kind === "pass") {
        if (rules.all_pass && bidText !== "" && bidText !== String(rules.min_bid) && bidText !== "thani") {
          refuse("pass_bid", "bid", {bid: rules.min_bid});
        }
        if (rules.all_pass && trump !== "" && trump !== "no-trumps") refuse("pass_trump", "trump");
        if (rules.all_pass && (doubling === "double" || doubling === "redouble")) refuse("pass_doubled", "doubling");
      } else {
        bid = whole(bidText);
        var low = rules.min_bid, high = rules.max_bid;
        if (bidText === "thani") { /* refused above: the game plays no thani */ }
        else if (bidText === "") refuse("bid", "bid", {low: low, high: high});
        else if (bid === null) refuse("bid_whole", "bid", {low: low, high: high});
        else if (bid < low || bid > high) refuse("bid_range", "bid", {low: low, high: high, bid: bid});
        if (TRUMPS.indexOf(trump) === -1) refuse("trump", "trump");
      }
      piles = {};
      var count = 0, total = 0;
      inPlay.forEach(function (team) {
        var pileText = text("points_" + team), name = "points_" + team, pile = whole(pileText);
        if (pileText === "") refuse("pile", name, {team: team});
        else if (pile === null) refuse("pile_whole", name, {team: team});
        else if (pile < 0 || pile > TOTAL_POINTS) refuse("pile_range", name, {team: team});
        else { piles[team] = pile; count += 1; total += pile; }
      });
      if (count === inPlay.length && total !== TOTAL_POINTS) refuse("total", null, {total: total});
    }
    if (errors.length) return {errors: errors};
    if (kind === "thani") return {errors: [], entry: {kind: "thani", seat: seat, made: madeText === "yes"}};
    if (kind === "pass") return {errors: [], entry: {kind: "pass", points: piles}};
    return {errors: [], entry: {kind: "bid", seat: seat, bid: bid, trump: trump, doubling: doubling, points: piles}};
  }

  // A refusal in the reader's words: the message's "%(name)s" and "%(name)d" filled in, a
  // team by its name, "%%" a "%" (as Python's % operator).
  function words(wire, error) {
    var template = wire.messages[error.code] || error.code;
    return template.replace(/%(?:\((\w+)\)[sd]|%)/g, function (whole, name) {
      if (!name) return "%";
      var value = error.params[name];
      if (name === "team") return wire.teams[value] !== undefined ? wire.teams[value] : String(value);
      return String(value);
    });
  }

  var api = {checkEntry: checkEntry, words: words};
  if (typeof module === "object" && module.exports) {
    module.exports = api;
    return;
  }
  root.clubEntry = api;
  if (typeof document === "undefined") return;

  // --- On the page ---------------------------------------------------------------------

  // The page's words for ``name`` (the JSON _offline_words.html writes, read once), each
  // {placeholder} filled once (a team named "{tables}" stays as it is named).
  var pageWords = null;
  function say(name, values) {
    if (pageWords === null) pageWords = json("offline-words") || {};
    values = values || {};
    return (pageWords[name] || name).replace(/\{(\w+)\}/g, function (whole, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? String(values[key]) : whole;
    });
  }

  // What a settlement moved or scored: "made · Lions: +4 → 16 · Tigers: -4 → 8".
  function outcome(settlement, rules, teams) {
    var points = rules.scoring === "points";
    var change = points ? settlement.scored : settlement.transfers;
    var after = points ? settlement.score_after : settlement.tables_after;
    var parts = [settlement.made ? say("made") : say("failed")];
    teams.forEach(function (name, team) {
      if (change[team]) parts.push(name + ": " + (change[team] > 0 ? "+" : "") + change[team] + " → " + after[team]);
    });
    return parts.join(" · ");
  }
  api.say = say;
  api.outcome = outcome;

  function json(id) {
    var source = document.getElementById(id);
    if (!source) return null;
    try { return JSON.parse(source.textContent); } catch (error) { return null; }
  }

  function value(form, name) {
    var inputs = form.querySelectorAll("[name='" + name + "']");
    for (var i = 0; i < inputs.length; i += 1) {
      var input = inputs[i];
      if (input.disabled) continue;
      if (input.type === "radio" || input.type === "checkbox") {
        if (input.checked) return input.value;
      } else {
        return input.value;
      }
    }
    return "";
  }

  function kindOf(form) {
    var declarer = value(form, "declarer");
    if (declarer === "pass") return "pass";
    var bid = form.querySelector("input[name=bid]:checked");
    if (declarer.indexOf("thani:") === 0 || (bid && bid.value === "thani")) return "thani";
    return "bid";
  }

  // Only what the contract needs: a group hidden is disabled too, so it is not sent.
  function shape(form) {
    var kind = kindOf(form);
    form.dataset.kind = kind;
    form.querySelectorAll("[data-contract], [data-not-thani], [data-thani-only]").forEach(function (group) {
      var hide = (kind === "pass" && group.hasAttribute("data-contract")) ||
        (kind === "thani" && group.hasAttribute("data-not-thani")) ||
        (kind !== "thani" && group.hasAttribute("data-thani-only"));
      group.hidden = hide;
      group.querySelectorAll("input").forEach(function (input) { input.disabled = hide; });
    });
  }

  // The pile of the declaring team's: where the count starts.
  function declaringTeam(form, wire) {
    var declarer = form.querySelector("input[name=declarer]:checked");
    if (!declarer) return null;
    if (declarer.value === "pass") {
      var phone = json("phone-rules");
      if (!phone) return null;
      var state = root.clubPhoneState || phone.state;
      var seat = root.clubRules.nextSeat(phone.rules, state, state.dealer);
      return seatOrder(state.team_count, phone.rules.team_size)[seat][0];
    }
    return declarer.dataset.team === undefined ? null : Number(declarer.dataset.team);
  }

  function piles(form) { return Array.prototype.slice.call(form.querySelectorAll("input[data-pile]")); }

  // With every pile but one typed, the last is what is left of 56 (two teams: 56 minus the
  // one typed). A pile filled in so is marked and greyed: a suggestion, which a key typed
  // in it replaces and a deletion empties. A pile the scorer empties stays empty while the
  // cursor is in it, and takes the suggestion again once the scorer leaves it empty.
  function fillLast(form) {
    var all = piles(form);
    var open = all.filter(function (input) { return !input.dataset.typed; });
    var typed = all.filter(function (input) { return input.dataset.typed; });
    var sum = 0, readable = true;
    typed.forEach(function (input) {
      var pile = whole(strip(input.value));
      if (pile === null) readable = false; else sum += pile;
    });
    all.forEach(function (input) { if (input.dataset.filled && !input.dataset.typed) { input.value = ""; delete input.dataset.filled; } });
    if (open.length === 1 && !open[0].dataset.emptied && readable && sum <= TOTAL_POINTS) {
      open[0].value = String(TOTAL_POINTS - sum);
      open[0].dataset.filled = "1";
    }
    all.forEach(function (input) { input.classList.toggle("filled", !!input.dataset.filled); });
  }

  // A pile is complete when no digit more could make it a pile: two digits, or one of 6-9
  // (60 and more is past 56), or 0.
  function complete(text) { return /^\d\d$/.test(text) || /^[06-9]$/.test(text); }

  // The cursor to the pile still to type, the declaring team's first; none when only a
  // suggestion is left (the piles typed make 56 with it).
  function focusPile(form, wire) {
    var all = piles(form).filter(function (input) { return !input.disabled && !input.dataset.typed && !input.dataset.filled; });
    if (!all.length) return;
    var team = declaringTeam(form, wire);
    var first = all.filter(function (input) { return Number(input.dataset.team) === team; })[0] || all[0];
    first.focus();
  }

  function total(form) {
    var sum = 0, filled = 0, all = piles(form);
    all.forEach(function (input) {
      if (input.value !== "") { sum += Number(input.value) || 0; filled += 1; }
    });
    var out = form.querySelector("[data-pile-total]");
    if (!out) return;
    out.textContent = filled ? String(sum) : "—";
    var box = out.closest(".running-total");
    box.classList.toggle("ok", filled === all.length && sum === TOTAL_POINTS);
    box.classList.toggle("bad", sum > TOTAL_POINTS || (filled === all.length && sum !== TOTAL_POINTS));
  }

  // Each mistake at its field, for the fields touched (all of them once sending is tried).
  function showErrors(form, wire, found, all) {
    var byField = {}, boxes = {};
    form.querySelectorAll("[data-errors-for]").forEach(function (box) { boxes[box.dataset.errorsFor] = true; });
    found.errors.forEach(function (error) {
      // A field the page does not show (made or failed, where no thani is played): said of
      // the entry as a whole, as the server does.
      var name = boxes[error.field || ""] ? error.field || "" : "";
      (byField[name] = byField[name] || []).push(words(wire, error));
    });
    form.querySelectorAll("[data-errors-for]").forEach(function (box) {
      var name = box.dataset.errorsFor;
      // The server's words stand until the scorer changes something.
      if (box.dataset.server && !form.dataset.changed) return;
      var shown = all || (name ? form.dataset["touched_" + name] : allPilesTouched(form));
      // A pile the scorer has just emptied is being typed: nothing to tell until it is left.
      if (!all && name && form.querySelector("[data-pile][data-emptied][name='" + name + "']")) shown = false;
      var messages = shown ? byField[name] || [] : [];
      if (box.textContent !== messages.join("")) {  // an alert said again only when it changes
        box.replaceChildren();
        messages.forEach(function (message) {
          var line = document.createElement("p");
          if (name) line.className = "error";
          line.textContent = message;
          box.appendChild(line);
        });
      }
      if (!name) box.hidden = !messages.length;
      var group = box.closest("fieldset.keys") || box.closest(".field");
      if (group) {
        group.classList.toggle("has-error", !!messages.length);
        [group].concat(Array.prototype.slice.call(group.querySelectorAll("input"))).forEach(function (target) {
          if (messages.length) target.setAttribute("aria-invalid", "true");
          else target.removeAttribute("aria-invalid");
        });
      }
    });
  }

  function allPilesTouched(form) {
    return piles(form).every(function (input) { return input.dataset.typed || input.dataset.filled; });
  }

  // What the deal would settle to, as the phone counts it (the server's count is the one
  // that counts), above the button.
  function preview(form, found) {
    var box = form.querySelector("[data-preview]");
    var phone = json("phone-rules");
    if (!box) return;
    if (!phone || !root.clubRules || found.errors.length) { box.hidden = true; return; }
    // After the deals kept on the phone, as offline.js counts them, when there are some.
    var state = root.clubPhoneState || phone.state;
    try {
      var deal = root.clubRules.dealFromFields({rules: phone.rules, state: state, seats: phone.seats},
        function (name) { return value(form, name); });
      var settled = root.clubRules.settle(phone.rules, state, deal);
    } catch (error) {
      box.hidden = true;
      return;
    }
    var text = say("preview", {outcome: outcome(settled.settlement, phone.rules, phone.teams)});
    if (settled.finished) text += " " + say("ends");
    box.textContent = text;
    box.hidden = false;
  }

  function update(form) {
    var wire = json("phone-entry");
    if (!wire) return null;
    form.querySelectorAll("label.key").forEach(function (key) {
      var input = key.querySelector("input");
      key.classList.toggle("chosen", !!input && input.checked);
    });
    shape(form);
    total(form);
    var found = checkEntry(wire, function (name) { return value(form, name); });
    showErrors(form, wire, found, !!form.dataset.tried);
    preview(form, found);
    return found;
  }

  // A group of keys folds to the key chosen; the chosen key, or "Change", opens it again.
  function fold(group, folded) {
    group.classList.toggle("folded", folded);
    var change = group.querySelector("[data-change]");
    if (!change) {
      change = document.createElement("button");
      change.type = "button";
      change.className = "link key-change";
      change.dataset.change = "";
      change.textContent = say("change");
      var legend = group.querySelector("legend");
      if (legend) change.setAttribute("aria-label", say("change") + ": " + legend.textContent.trim());
      group.querySelector(".key-grid, .key-row").appendChild(change);
    }
    change.hidden = !folded;
    change.setAttribute("aria-expanded", folded ? "false" : "true");
  }

  // A form shown again with what was typed (refused, or put back in the form): what it
  // holds is the scorer's, and a group with a key chosen folds unless it is wrong.
  function adopt(form) {
    piles(form).forEach(function (input) { if (input.value !== "") input.dataset.typed = "1"; });
    form.querySelectorAll("fieldset.keys").forEach(function (group) {
      var name = group.dataset.group;
      if (group.querySelector("input:checked") && name !== "doubling" && name !== "thani_made") {
        form.dataset["touched_" + name] = "1";
        fold(group, !group.classList.contains("has-error"));
      }
    });
  }

  function setUp(form) {
    if (form.dataset.entryReady || !document.getElementById("phone-entry")) return;
    form.dataset.entryReady = "1";
    var wire = json("phone-entry");
    form.querySelectorAll("[data-no-script-note]").forEach(function (note) { note.hidden = true; });
    adopt(form);
    // The entry's own mistakes (the piles' total) go at the top of the form: a box for them,
    // where the server sent none.
    if (!form.querySelector("[data-errors-for='']")) {
      var box = document.createElement("div");
      box.className = "errors";
      box.setAttribute("role", "alert");
      box.dataset.errorsFor = "";
      box.hidden = true;
      var number = form.querySelector("input[name=number]");
      form.insertBefore(box, number || form.firstChild);
    }
    form.querySelectorAll("[data-errors-for]").forEach(function (box) {
      if (box.textContent.trim()) box.dataset.server = "1";
    });
    form.addEventListener("input", function () { form.dataset.changed = "1"; }, true);
    form.addEventListener("change", function () { form.dataset.changed = "1"; }, true);
    // A tap folds its group and moves on; arrow keys move within a group and fold nothing
    // (a group folded would hide the keys they move to).
    var tapped = false;
    form.addEventListener("pointerdown", function () { tapped = true; }, true);
    form.addEventListener("keydown", function () { tapped = false; }, true);
    form.addEventListener("change", function (event) {
      var input = event.target;
      if (input.type === "radio") {
        form.dataset["touched_" + input.name] = "1";
        var group = input.closest("fieldset.keys");
        var kind = kindOf(form);
        var byTap = tapped;
        tapped = false;
        if (byTap && group && ["declarer", "bid", "trump"].indexOf(input.name) !== -1) fold(group, true);
        update(form);
        // Next: the piles once the contract is known (trumps chosen, or all passed). Doubled
        // or redoubled is called after the trumps: its tap takes the cursor back to the
        // pile, not away from it.
        var contractKnown = input.name === "trump" || (input.name === "declarer" && kind === "pass") ||
          (input.name === "doubling" && !!form.querySelector("input[name=trump]:checked:not([disabled])"));
        if (byTap && contractKnown) focusPile(form, wire);
      }
    });
    form.addEventListener("click", function (event) {
      var change = event.target.closest("[data-change]");
      var key = event.target.closest(".folded label.key");
      if (change || key) {
        var group = (change || key).closest("fieldset.keys");
        if (key && !key.querySelector("input:checked")) return;
        event.preventDefault();
        fold(group, false);
        var checked = group.querySelector("input:checked") || group.querySelector("input");
        if (checked) checked.focus();
      }
    });
    // A suggested pile: a key typed replaces it, a deletion empties it.
    form.addEventListener("beforeinput", function (event) {
      var input = event.target;
      if (!input.hasAttribute || !input.hasAttribute("data-pile") || !input.dataset.filled) return;
      var kind = event.inputType || "";
      if (kind.indexOf("insert") === 0) {
        input.value = "";
      } else if (kind.indexOf("delete") === 0) {
        event.preventDefault();
        input.value = "";
        input.dispatchEvent(new Event("input", {bubbles: true}));
      }
    });
    form.addEventListener("input", function (event) {
      var input = event.target;
      if (!input.hasAttribute("data-pile")) return;
      if (input.value === "") {
        delete input.dataset.typed;
        input.dataset.emptied = "1";
      } else {
        input.dataset.typed = "1";
        delete input.dataset.emptied;
      }
      delete input.dataset.filled;
      form.dataset["touched_" + input.name] = "1";
      fillLast(form);
      update(form);
      if (complete(asciiDigits(strip(input.value)))) {
        var next = piles(form).filter(function (other) { return !other.dataset.typed && !other.dataset.filled && !other.disabled; })[0];
        if (next) next.focus();
      }
    });
    form.addEventListener("focusout", function (event) {
      var input = event.target;
      if (!input.hasAttribute || !input.hasAttribute("data-pile") || !input.dataset.emptied) return;
      delete input.dataset.emptied;
      fillLast(form);
      update(form);
    });
    form.addEventListener("submit", function (event) {
      form.dataset.tried = "1";
      var found = update(form);
      if (found && found.errors.length) {
        event.preventDefault();
        event.stopImmediatePropagation();
        var first = form.querySelector(".errors:not([hidden]), .has-error input:not([disabled])");
        if (first) {
          if (first.matches("input")) first.focus({preventScroll: true});
          first.scrollIntoView({block: "center"});
        }
      }
    }, true);
    update(form);
  }

  // After a deal is recorded or kept on the phone: the next deal starts empty (the number
  // and the dealer carry over, from the page).
  function reset(form) {
    form.querySelectorAll("input[type=radio]").forEach(function (input) {
      input.checked = input.name === "doubling" && input.value === "none";
    });
    piles(form).forEach(function (input) {
      input.value = "";
      delete input.dataset.typed;
      delete input.dataset.filled;
      delete input.dataset.emptied;
    });
    Object.keys(form.dataset).forEach(function (key) {
      if (key.indexOf("touched_") === 0 || key === "tried") delete form.dataset[key];
    });
    form.querySelectorAll("fieldset.keys").forEach(function (group) { fold(group, false); });
    form.querySelectorAll("[data-server]").forEach(function (box) { delete box.dataset.server; });
    update(form);
  }
  api.reset = reset;
  api.refresh = function () { document.querySelectorAll("form.deal-form").forEach(update); };

  // An entry put back in the form (a deal kept on the phone that the club refused): its
  // fields as they were sent; a thani of older pages ("thani:<id>") on the bid pad.
  api.fill = function (form, fields) {
    reset(form);
    var oldThani = fields.some(function (pair) { return pair[0] === "declarer" && pair[1].indexOf("thani:") === 0; });
    fields.forEach(function (pair) {
      var name = pair[0], given = pair[1];
      if (name === "csrfmiddlewaretoken" || name === "idempotency_key" || name === "number") return;
      if (oldThani && name === "declarer") given = given.slice(6);
      if (oldThani && name === "bid") given = "thani";
      form.querySelectorAll("[name='" + name + "']").forEach(function (input) {
        if (input.type === "radio" || input.type === "checkbox") input.checked = input.value === given;
        else input.value = given;
      });
    });
    if (oldThani && !fields.some(function (pair) { return pair[0] === "bid"; })) {
      var thani = form.querySelector("input[name=bid][value=thani]");
      if (thani) thani.checked = true;
    }
    adopt(form);
    update(form);
  };

  // A deal another phone recorded first: what this phone typed goes back in the form.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-put-typed]");
    if (!button) return;
    var typed = json("typed-entry");
    var form = document.querySelector("form.deal-form");
    if (!typed || !form) return;
    api.fill(form, Object.keys(typed).map(function (name) { return [name, typed[name]]; }));
    button.disabled = true;
    var first = form.querySelector("input[name=declarer]:checked") || form.querySelector("input[name=declarer]");
    if (first) first.focus();
  });

  // htmx: a form with mistakes found here is not sent (the submit above stops the browser's
  // own sending; htmx asks first).
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form.deal-form") || !form.dataset.entryReady) return;
    form.dataset.tried = "1";
    var found = update(form);
    if (found && found.errors.length) event.preventDefault();
  });

  function start(scope) {
    scope.querySelectorAll("form.deal-form").forEach(setUp);
  }
  document.addEventListener("DOMContentLoaded", function () { start(document); });
  document.addEventListener("htmx:load", function (event) { start(event.target.querySelectorAll ? event.target : document); });
})(typeof window !== "undefined" ? window : this);
