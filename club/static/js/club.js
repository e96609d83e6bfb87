// Small enhancements for the score pages; every form also works without them.
(function () {
  "use strict";

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

  // The header's menu (base.html): Escape folds it again on a phone. A browser that cannot
  // show a closed <details>' content keeps the menu's button on a wide screen too: open.
  document.addEventListener("keydown", function (event) {
    var menu = event.key === "Escape" && document.querySelector(".site-menu[open]");
    if (!menu || !window.matchMedia("(max-width: 47.99rem)").matches) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  document.addEventListener("DOMContentLoaded", function () {
    var menu = document.querySelector(".site-menu");
    var wide = window.matchMedia("(min-width: 48rem)").matches;
    if (menu && wide && !(window.CSS && CSS.supports("selector(::details-content)"))) menu.open = true;
  });

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
