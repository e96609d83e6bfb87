from django.shortcuts import get_object_or_404, render

from club.games.models import Player


def player_profile(request, pk: int):
    player = get_object_or_404(Player, pk=pk)
    return render(request, "leaderboards/player.html", {"player": player})
