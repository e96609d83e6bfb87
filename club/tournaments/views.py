from django.shortcuts import render

from club.tournaments.models import Tournament


def tournament_list(request):
    return render(request, "tournaments/list.html", {"tournaments": Tournament.objects.all()})
