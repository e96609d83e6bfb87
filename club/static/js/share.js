// The Share button of a public page (templates/_share.html): the phone's share sheet
// (navigator.share) with the page's title, its one-line result and its address; where
// there is none, the address copied. At the venue the site is plain HTTP, which is no
// secure context: no share sheet, no clipboard API there, so the address is put in a
// field, selected and copied the old way, or left selected with "Copy this link".
(function () {
  "use strict";

  // The button is the script's: without it the page shows none.
  function reveal(root) {
    (root || document).querySelectorAll("[data-share]").forEach(function (box) {
      box.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  // A part of the page htmx swapped in (the live part that holds the button).
  document.addEventListener("htmx:load", function (event) {
    var part = event.detail && event.detail.elt;
    if (part && part.querySelectorAll) reveal(part.parentNode || part);
  });

  function say(box, words) {
    var status = box.querySelector("[data-share-status]");
    status.textContent = "";
    // Emptied first: the same words said again are announced again.
    window.setTimeout(function () { status.textContent = words; }, 50);
  }

  function copyByHand(box) {
    var field = box.querySelector("[data-share-link]");
    field.hidden = false;
    field.focus();
    field.select();
    field.setSelectionRange(0, field.value.length);
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    // Copied: the field has done its work. Not: it stays, selected, for the reader to copy.
    if (copied) field.hidden = true;
    say(box, copied ? box.dataset.copied : box.dataset.copyThis);
  }

  function copy(box) {
    var url = box.dataset.shareUrl;
    if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(
        function () { say(box, box.dataset.copied); },
        function () { copyByHand(box); }
      );
      return;
    }
    copyByHand(box);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-share-button]");
    if (!button) return;
    var box = button.closest("[data-share]");
    var shared = {
      title: box.dataset.shareTitle,
      text: box.dataset.shareText,
      url: box.dataset.shareUrl
    };
    if (navigator.share && (!navigator.canShare || navigator.canShare(shared))) {
      navigator.share(shared).catch(function (error) {
        // Closed by the reader: nothing to do. Refused (no sheet after all): copy.
        if (!error || error.name !== "AbortError") copy(box);
      });
      return;
    }
    copy(box);
  });
})();
