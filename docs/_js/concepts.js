/* The concept check (docs/concepts.md, docs/_ext/vx_concepts.py): grades the chosen options by
   the specs vx.exercises.check grades "cc.NN" by, keeps the answers before and after the series
   in this browser (localStorage), shows both scores and the normalised gain, and saves them as a
   JSON file that scripts/concept_gain.py reads. Nothing is sent anywhere. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("vx-concepts-data").textContent);
  var KEY = "vitexplain-concept-check";

  /* _rules.grade_choice for a chosen letter: null when right, else the option's hint */
  function choiceHint(spec, letter) {
    if (letter === spec.answer) return null;
    for (var i = 0; i < spec.rules.length; i++) {
      if (spec.rules[i].equals === letter) return spec.rules[i].hint.replace("{answer}", "'" + letter + "'");
    }
    return spec.default;
  }
  /* The line vx.exercises.check("cc.NN", letter) prints; "" is no answer. */
  function verdict(item, letter) {
    if (!letter) return DATA.verdict.none.replace("{id}", item.id);
    var h = choiceHint(item.spec, letter);
    var line = h === null ? DATA.verdict.right : DATA.verdict.hint.replace("{hint}", function () { return h; });
    return line.replace("{id}", item.id).replace("{why}", function () { return item.why; });
  }
  /* Hake's normalised gain, (post - pre) / (100 - pre) in percent right; null at pre = 100. */
  function gain(pre, post) { return pre === 100 ? null : (post - pre) / (100 - pre); }
  function score(answers) {
    var right = DATA.items.filter(function (item) { return answers[item.id] === item.spec.answer; });
    return 100 * right.length / DATA.items.length;
  }
  window.vxConcepts = { verdict: verdict, gain: gain, score: score };

  var root = document.getElementById("vx-concepts");
  if (!root) return;
  var form = root.querySelector("form"), summary = root.querySelector(".vx-cc-summary");
  function load() {
    try { return JSON.parse(localStorage.getItem(KEY)) || {}; } catch (error) { return {}; }
  }
  var saved = load();
  function record() {
    return {
      format: "vitexplain-concept-check", version: 1,
      items: DATA.items.map(function (item) { return item.id; }),
      before: saved.before || null, after: saved.after || null
    };
  }
  function when() { return form.querySelector("input[name=vx-cc-when]:checked").value; }
  function percent(x) { return x + " %"; }
  function show() {
    var parts = [];
    ["before", "after"].forEach(function (w) {
      var s = saved[w];
      if (s) parts.push((w === "before" ? "Before" : "After") + ": " + s.right + " of " +
        DATA.items.length + " right (" + percent(s.score) + ").");
    });
    if (saved.before && saved.after) {
      var g = gain(saved.before.score, saved.after.score);
      parts.push(g === null ? "Your normalised gain is not defined: you had every answer right before." :
        "Your normalised gain g = (" + saved.after.score + " − " + saved.before.score + ") / (100 − " +
        saved.before.score + ") = " + g.toFixed(2) + ".");
    }
    summary.textContent = parts.length ? parts.join(" ") : "No answers saved yet.";
  }
  function fill(answers) {
    DATA.items.forEach(function (item) {
      form.querySelectorAll("input[name='" + item.id + "']").forEach(function (input) {
        input.checked = (answers || {})[item.id] === input.value;
      });
      root.querySelector("#vx-cc-verdict-" + item.id.replace(".", "-")).textContent = "";
    });
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!form.querySelector(".vx-cc-item input:checked")) {  /* keep what is saved */
      summary.textContent = "No option chosen yet: choose at least one, then grade.";
      return;
    }
    var answers = {}, right = 0;
    DATA.items.forEach(function (item) {
      var chosen = form.querySelector("input[name='" + item.id + "']:checked");
      var letter = chosen ? chosen.value : "";
      answers[item.id] = letter;
      if (letter === item.spec.answer) right++;
      var out = root.querySelector("#vx-cc-verdict-" + item.id.replace(".", "-"));
      out.textContent = verdict(item, letter);
      out.className = "vx-verdict " + (letter === item.spec.answer ? "vx-right" : "vx-not-yet");
    });
    saved[when()] = { answers: answers, right: right, score: score(answers), date: new Date().toISOString() };
    try { localStorage.setItem(KEY, JSON.stringify(record())); } catch (error) { /* private mode */ }
    show();
  });
  form.querySelectorAll("input[name=vx-cc-when]").forEach(function (input) {
    input.addEventListener("change", function () { fill(saved[when()] && saved[when()].answers); });
  });
  root.querySelector(".vx-cc-download").addEventListener("click", function () {
    var blob = new Blob([JSON.stringify(record(), null, 1) + "\n"], { type: "application/json" });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "vitexplain-concept-check.json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
  });
  root.querySelector(".vx-cc-forget").addEventListener("click", function () {
    saved = {};
    try { localStorage.removeItem(KEY); } catch (error) { /* private mode */ }
    fill({});
    show();
  });
  if (saved.before && !saved.after) form.querySelector("input[value=after]").checked = true;
  fill(saved[when()] && saved[when()].answers);
  root.querySelectorAll("[hidden].vx-cc-js").forEach(function (el) { el.hidden = false; });
  show();
})();
