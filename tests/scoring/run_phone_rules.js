// Runs club/static/js/rules.js over the games test_phone_rules.py writes to stdin: each game
// is settled deal by deal from its first state, the phone's own state carried forward,
// and what each deal settled to (or the field a refusal names) is written to stdout.
"use strict";
const rules = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const games = JSON.parse(input);
  const out = games.map((game) => {
    let state = game.state;
    return game.deals.map((step) => {
      try {
        const deal = step.fields
          ? rules.dealFromFields({rules: game.rules, state: state, seats: game.seats},
            (name) => (name in step.fields ? step.fields[name] : ""))
          : step.deal;
        const settled = rules.settle(game.rules, state, deal);
        state = settled.after;
        return {settlement: settled.settlement, after: settled.after, finished: settled.finished};
      } catch (error) {
        if (!error.code) throw error;
        return {refused: error.field};
      }
    });
  });
  process.stdout.write(JSON.stringify(out));
});
