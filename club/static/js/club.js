// Small enhancements for the score pages; every form also works without them.
(function () {
  "use strict";

  function updateDealForm(form) {
    var total = 0, filled = 0, piles = form.querySelectorAll("[data-pile]");
    piles.forEach(function (input) {
      if (input.value !== "") { total += Number(input.value) || 0; filled += 1; }
    });
    var out = form.querySelector("[data-pile-total]");
    if (out) {
      out.textContent = filled ? String(total) : "—";
      var box = out.closest(".running-total");
      box.classList.toggle("ok", filled === piles.length && total === 56);
      box.classList.toggle("bad", total > 56 || (filled === piles.length && total !== 56));
    }
    var declarer = form.querySelector("select[name=declarer]");
    if (declarer) {
      var allPass = declarer.value === "pass";
      form.querySelectorAll("[name=bid], [name=trump], [name=doubling]").forEach(function (el) {
        el.disabled = allPass;
      });
    }
  }

  function setUp(root) {
    root.querySelectorAll("form.deal-form").forEach(function (form) {
      if (form.dataset.ready) return;
      form.dataset.ready = "1";
      form.addEventListener("input", function () { updateDealForm(form); });
      form.addEventListener("change", function () { updateDealForm(form); });
      updateDealForm(form);
    });
  }

  // A search box that narrows a list as one types (input[data-filter] names the items,
  // each with its words in data-filter-text); without scripts the form asks the server.
  function searchKey(text) {
    // As club.scoring.names.search_key: case folded (final sigma, sharp s), accents gone.
    return text.toLowerCase().replace(/ς/g, "σ").replace(/ß/g, "ss").normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "").replace(/\s+/g, " ").trim();
  }
  document.addEventListener("input", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches("input[data-filter]")) return;
    var wanted = searchKey(box.value), shown = 0;
    document.querySelectorAll(box.dataset.filter).forEach(function (item) {
      var match = !wanted || searchKey(item.dataset.filterText || item.textContent).indexOf(wanted) !== -1;
      item.hidden = !match;
      if (match) shown += 1;
    });
    var empty = document.querySelector("[data-filter-empty]");
    if (empty) empty.hidden = shown > 0;
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-print]")) window.print();
  });

  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    var message = button && button.dataset.confirm;
    if (message && !window.confirm(message)) event.preventDefault();
  });
  // A form marked data-autosubmit (the language switcher) sends itself on change.
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form[data-autosubmit]");
    if (form) form.submit();
  });
  document.documentElement.classList.add("js");
  document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  document.addEventListener("htmx:load", function (event) { setUp(event.target); });

  // Lost database connection (club/middleware.py): htmx leaves 5xx answers unshown,
  // so let through the 503 note aimed at the form that was sent; the form keeps
  // what was typed. An older note is replaced, not stacked.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr.status !== 503 || !xhr.getResponseHeader("HX-Retarget")) return;
    event.detail.shouldSwap = true;
    var old = event.detail.target.querySelector(".db-retry");
    if (old) old.remove();
  });
  document.addEventListener("click", function (event) {
    var back = event.target.closest && event.target.closest("[data-history-back]");
    if (back && window.history.length > 1) { event.preventDefault(); window.history.back(); }
  });
})();
