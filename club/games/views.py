from django.shortcuts import render

from club.games.models import Game


def game_list(request):
    games = Game.objects.prefetch_related("teams__team")
    return render(request, "games/list.html", {"games": games})
