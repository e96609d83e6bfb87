"""The web import's form: a results file, checked and previewed before it is stored."""

from django import forms
from django.utils.translation import gettext_lazy as _

from club.web.uploads import MB, LimitedFileField

# As the command-line import: a club's whole history is a few MB.
MAX_UPLOAD_BYTES = 50 * MB


class ResultsFileForm(forms.Form):
    file = LimitedFileField(
        max_bytes=MAX_UPLOAD_BYTES,
        label=_("Results file"),
        help_text=_(
            "A fiftysix-results/1 JSON file: a tournament's archive, or the club's games, "
            "as the laptop at the venue exports them."
        ),
        # Kept as it is when the preview replaces the form (htmx), with the file chosen.
        widget=forms.ClearableFileInput(
            attrs={"accept": ".json,application/json", "hx-preserve": "true"}
        ),
    )
    # The file's fingerprint as it was previewed: the import stores that file only.
    previewed = forms.CharField(required=False, widget=forms.HiddenInput)
