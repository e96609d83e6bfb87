"""The site administrator's form for a new club."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from club.clubs.models import Club


class ClubForm(forms.ModelForm):
    languages = forms.MultipleChoiceField(
        label=_("Languages of its pages"),
        choices=settings.LANGUAGES,
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = Club
        fields = ["name", "slug", "languages", "time_zone"]

    def clean_slug(self) -> str:
        return self.cleaned_data["slug"].strip().lower()

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if Club.objects.filter(name__iexact=name).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError(
                _("There is already a club called “%(name)s”."), params={"name": name}
            )
        return name
