// The rules of 56 on the phone: what a deal kept offline settles to, before the club
// answers. A line-by-line port of club/scoring/rules.py's settle(), fed the game's rules
// and state as the server writes them (club/scoring/wire.py, in the page as JSON).
// The server's settlement is the one that counts; tests/scoring/test_phone_rules.py runs
// this file in Node beside the Python on random games of every form of play, deal by
// deal, and fails on any difference. Plain ES5: it runs in the browser (window.clubRules)
// and in Node (module.exports).
(function (root) {
  "use strict";
  var TOTAL_POINTS = 56;

  // A deal that cannot be under these rules: `field` as the Python's RulesError names it
  // (null when the game is over), `code` saying which refusal.
  function refuse(field, code) {
    var error = new Error(code);
    error.field = field;
    error.code = code;
    return error;
  }

  function isWhole(value) {
    return typeof value === "number" && isFinite(value) && Math.floor(value) === value;
  }

  function eliminates(rules) {
    return rules.scoring === "tables" && !rules.kodi;
  }

  function seatOrder(teamCount, teamSize) {
    var seats = [];
    for (var partner = 0; partner < teamSize; partner += 1) {
      for (var team = 0; team < teamCount; team += 1) seats.push([team, partner]);
    }
    return seats;
  }

  function Game(rules, state) {
    this.rules = rules;
    this.state = state;
    this.seats = seatOrder(state.team_count, rules.team_size);
  }

  Game.prototype.teamOf = function (seat) { return this.seats[seat][0]; };

  Game.prototype.inPlay = function (team) {
    return this.state.tables[team] > 0 || !eliminates(this.rules);
  };

  Game.prototype.teamsInPlay = function () {
    var teams = [];
    for (var team = 0; team < this.state.team_count; team += 1) if (this.inPlay(team)) teams.push(team);
    return teams;
  };

  Game.prototype.finished = function () { return this.teamsInPlay().length <= 1; };

  Game.prototype.nextSeat = function (seat) {
    var count = this.seats.length;
    for (var step = 1; step <= count; step += 1) {
      var candidate = (seat + step) % count;
      if (this.inPlay(this.teamOf(candidate))) return candidate;
    }
    throw refuse(null, "game_over");
  };

  // Whether two or more teams share first place as the game stands (rules.final_places).
  Game.prototype.leadersLevel = function () {
    var state = this.state, rules = this.rules, teams, key;
    if (rules.scoring === "points") {
      teams = range(state.team_count);
      key = function (team) { return [-state.scores[team]]; };
    } else if (rules.kodi) {
      teams = range(state.team_count);
      key = function (team) { return [state.kodis[team], -state.tables[team]]; };
    } else if (this.finished()) {
      return false;  // one team left, or none: no one shares first place
    } else {
      teams = this.teamsInPlay();
      key = function (team) { return [-state.tables[team]]; };
    }
    var best = null, level = 0;
    teams.forEach(function (team) {
      var k = key(team), order = best === null ? -1 : compare(k, best);
      if (order < 0) { best = k; level = 1; } else if (order === 0) { level += 1; }
    });
    return level > 1;
  };

  Game.prototype.limitReached = function () {
    var limit = this.rules.deal_limit, extra = this.rules.tie_deals, played = this.state.deals_played;
    if (limit === null || limit === undefined || played < limit) return false;
    if (extra === null || extra === undefined) return true;
    if (limit < played && played < limit + extra) return false;
    return !this.leadersLevel();
  };

  function range(count) {
    var out = [];
    for (var i = 0; i < count; i += 1) out.push(i);
    return out;
  }

  function compare(a, b) {
    for (var i = 0; i < a.length; i += 1) {
      if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
  }

  function bandFor(rules, bid) {
    for (var i = 0; i < rules.bands.length; i += 1) {
      var band = rules.bands[i];
      if (band[0] <= bid && bid <= band[1]) return {made: band[2], failed: band[3]};
    }
    throw refuse("bid", "bid_range");
  }

  function due(rules, figure, doubling) {
    if (doubling === "none") return figure;
    var factor = doubling === "double" ? rules.double_factor : rules.redouble_factor;
    return rules.doubling_mode === "multiply" ? figure * factor : figure + factor;
  }

  function checkSeat(game, seat, field) {
    if (!isWhole(seat) || seat < 0 || seat >= game.seats.length) throw refuse(field, "seat");
    return seat;
  }

  function checkPoints(game, points) {
    var state = game.state, inPlay = game.teamsInPlay(), total = 0, checked = {};
    Object.keys(points).forEach(function (key) {
      var team = Number(key);
      if (!isWhole(team) || team < 0 || team >= state.team_count) throw refuse("points", "pile_team");
      if (inPlay.indexOf(team) === -1) throw refuse("points", "pile_out");
    });
    inPlay.forEach(function (team) {
      if (!Object.prototype.hasOwnProperty.call(points, team)) throw refuse("points", "pile_missing");
      var pile = points[team];
      if (!isWhole(pile)) throw refuse("points", "pile_whole");
      if (pile < 0 || pile > TOTAL_POINTS) throw refuse("points", "pile_range");
    });
    Object.keys(points).forEach(function (key) { total += points[key]; });
    if (total !== TOTAL_POINTS) throw refuse("points", "piles_total");
    inPlay.forEach(function (team) { checked[team] = points[team]; });
    return checked;
  }

  // Teams still playing, in play order, starting with the one seated after `team`.
  function orderAfter(game, team) {
    var count = game.state.team_count, out = [];
    for (var step = 1; step < count; step += 1) {
      if (game.inPlay((team + step) % count)) out.push((team + step) % count);
    }
    return out;
  }

  // Tables each team gains (+) or pays (-), paying only what it holds (docs/rules.md B.2).
  function transfers(game, declaring, made, owed) {
    var tables = game.state.tables, others = orderAfter(game, declaring);
    var change = range(game.state.team_count).map(function () { return 0; });
    if (made) {
      others.forEach(function (team) {
        var paid = Math.min(owed, tables[team]);
        change[team] -= paid;
        change[declaring] += paid;
      });
      return change;
    }
    var holding = tables[declaring], shares = {};
    if (holding >= owed * others.length) {
      others.forEach(function (team) { shares[team] = owed; });
    } else {
      var share = Math.floor(holding / others.length), remainder = holding % others.length;
      others.forEach(function (team, index) { shares[team] = share + (index < remainder ? 1 : 0); });
    }
    others.forEach(function (team) {
      change[team] += shares[team];
      change[declaring] -= shares[team];
    });
    return change;
  }

  function absent(value) { return value === null || value === undefined; }

  function thaniContract(game, deal) {
    var thani = game.rules.thani;
    if (absent(thani)) throw refuse("thani", "no_thani");
    var seat = checkSeat(game, deal.thani, "thani");
    var team = game.teamOf(seat);
    if (!game.inPlay(team)) throw refuse("thani", "team_out");
    if (typeof deal.made !== "boolean") throw refuse("made", "thani_made");
    if (Object.keys(deal.points || {}).length || !absent(deal.bid) || !absent(deal.trump) || !absent(deal.declarer)) {
      throw refuse("thani", "thani_alone");
    }
    if (!absent(deal.doubling) && deal.doubling !== "none") throw refuse("doubling", "thani_doubled");
    return {declarer: seat, team: team, bid: null, trump: null, doubling: "none", points: {},
      made: deal.made, madeFigure: thani[0], failedFigure: thani[1]};
  }

  function allPassContract(game, deal, firstBidder) {
    var rules = game.rules;
    if (!rules.all_pass) throw refuse("declarer", "must_open");
    if (deal.doubling !== "none") throw refuse("doubling", "pass_doubled");
    if (!absent(deal.bid) && deal.bid !== rules.min_bid) throw refuse("bid", "pass_bid");
    if (!absent(deal.trump) && deal.trump !== "no-trumps") throw refuse("trump", "pass_trump");
    var team = game.teamOf(firstBidder);
    var points = checkPoints(game, deal.points || {});
    var band = bandFor(rules, rules.min_bid);
    return {declarer: null, team: team, bid: rules.min_bid, trump: "no-trumps", doubling: "none",
      points: points, made: points[team] >= rules.min_bid, madeFigure: band.made, failedFigure: band.failed};
  }

  var TRUMPS = ["clubs", "diamonds", "hearts", "spades", "no-trumps"];
  var DOUBLINGS = ["none", "double", "redouble"];

  function bidContract(game, deal) {
    var rules = game.rules;
    var declarer = checkSeat(game, deal.declarer, "declarer");
    var team = game.teamOf(declarer);
    if (!game.inPlay(team)) throw refuse("declarer", "team_out");
    var bid = deal.bid;
    if (!isWhole(bid)) throw refuse("bid", "bid_whole");
    if (bid < rules.min_bid || bid > rules.max_bid) throw refuse("bid", "bid_range");
    if (TRUMPS.indexOf(deal.trump) === -1) throw refuse("trump", "trump");
    if (DOUBLINGS.indexOf(deal.doubling) === -1) throw refuse("doubling", "doubling");
    var points = checkPoints(game, deal.points || {});
    var band = bandFor(rules, bid);
    return {declarer: declarer, team: team, bid: bid, trump: deal.trump, doubling: deal.doubling,
      points: points, made: points[team] >= bid, madeFigure: band.made, failedFigure: band.failed};
  }

  // Settle one deal against the state before it: {settlement, after}, as rules.settle.
  // `deal`: {points: {team: pile}, declarer: seat|null, bid, trump, doubling, thani: seat|null,
  // made}. Throws an Error with `field` and `code` for a deal that cannot have happened.
  function settle(rules, state, deal) {
    var game = new Game(rules, state);
    if (game.finished()) throw refuse(null, "game_over");
    if (game.limitReached()) throw refuse(null, "deal_limit");
    deal = Object.assign({doubling: "none", points: {}}, deal);
    var firstBidder = game.nextSeat(state.dealer);
    var contract;
    if (!absent(deal.thani)) contract = thaniContract(game, deal);
    else if (absent(deal.declarer)) contract = allPassContract(game, deal, firstBidder);
    else contract = bidContract(game, deal);

    var count = state.team_count, team = contract.team, made = contract.made;
    var owed = due(rules, made ? contract.madeFigure : contract.failedFigure, contract.doubling);
    var change, scored = {}, tables, scores, kodi = [];
    if (rules.scoring === "points") {
      change = range(count).map(function () { return 0; });
      range(count).forEach(function (other) { scored[other] = (other === team) === made ? owed : 0; });
      tables = state.tables.slice();
      scores = range(count).map(function (other) { return state.scores[other] + scored[other]; });
    } else {
      change = transfers(game, team, made, owed);
      tables = range(count).map(function (other) { return state.tables[other] + change[other]; });
      scores = state.scores.slice();
      if (rules.kodi) {
        kodi = range(count).filter(function (other) { return tables[other] === 0; });
        if (kodi.length) tables = range(count).map(function () { return rules.tables_per_team; });
      }
    }
    var kodis = range(count).map(function (other) { return state.kodis[other] + (kodi.indexOf(other) !== -1 ? 1 : 0); });
    var eliminated = eliminates(rules)
      ? game.teamsInPlay().filter(function (other) { return tables[other] === 0; })
      : [];
    var after = {team_count: count, tables: tables, dealer: state.dealer,
      deals_played: state.deals_played + 1, scores: scores, kodis: kodis};
    var next = new Game(rules, after);
    if (!next.finished()) after.dealer = next.nextSeat(state.dealer);
    return {
      settlement: {
        number: state.deals_played + 1,
        dealer: state.dealer,
        first_bidder: firstBidder,
        declarer: contract.declarer,
        declaring_team: team,
        bid: contract.bid,
        trump: contract.trump,
        doubling: contract.doubling,
        points: contract.points,
        made: made,
        transfers: change,
        tables_after: tables,
        eliminated: eliminated,
        scored: rules.scoring === "points" ? range(count).map(function (other) { return scored[other]; }) : [],
        score_after: rules.scoring === "points" ? scores : [],
        kodi: kodi,
        kodis_after: rules.kodi ? kodis : []
      },
      after: after,
      finished: next.finished() || next.limitReached()
    };
  }

  // A deal as the deal form sends it (games.deal_form.DealForm.entry), the declarer's player
  // named by the page's `seats` (player ids in seat order).
  function dealFromFields(wire, get) {
    var declarer = get("declarer") || "";
    var seat = function (player) { return wire.seats.indexOf(String(player)); };
    // Whole numbers as the form's fields take them (digits only: "1e1" or "+5" is refused,
    // here as by Django's IntegerField); an empty field is none.
    var number = function (value) {
      if (value === "" || value === null || value === undefined) return null;
      return /^\s*\d{1,9}\s*$/.test(String(value)) ? Number(value) : NaN;
    };
    // A thani: "thani" on the bid pad, or the declarer "thani:<id>" of older pages.
    if (declarer.indexOf("thani:") === 0 || (declarer !== "pass" && get("bid") === "thani")) {
      var player = declarer.indexOf("thani:") === 0 ? declarer.slice(6) : declarer;
      return {thani: seat(player), made: get("thani_made") === "yes" ? true : get("thani_made") === "no" ? false : null};
    }
    var points = {};
    game(wire).teamsInPlay().forEach(function (team) { points[team] = number(get("points_" + team)); });
    if (declarer === "pass") return {points: points};
    return {
      points: points,
      declarer: declarer === "" ? -1 : seat(declarer),
      bid: number(get("bid")),
      trump: get("trump") || "",
      doubling: get("doubling") || "none"
    };
  }

  function game(wire) { return new Game(wire.rules, wire.state); }

  // The seat after `seat` whose team is still at the table: who bids first after a dealer.
  function nextSeat(rules, state, seat) { return new Game(rules, state).nextSeat(seat); }

  var api = {settle: settle, dealFromFields: dealFromFields, nextSeat: nextSeat, seatOrder: seatOrder,
    trumps: TRUMPS, doublings: DOUBLINGS};
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.clubRules = api;
})(typeof window !== "undefined" ? window : this);
