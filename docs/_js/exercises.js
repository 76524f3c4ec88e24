/* The site's exercise grader: the same value specs and the same hints as vx.exercises.check.
   Each step mirrors vitexplain/exercises/_rules.py: parse the typed text into the value Python
   would see (normalize), read it in the spec's kind (parse), then is_right, the rules in order,
   and the default hint. Nothing is sent or stored. Inlined by docs/_ext/vx_exercises.py. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("vx-exercises-data").textContent);
  var NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

  /* --- text -> value: {t: "int"|"float"|"bool"|"str"|"tuple"|"list"|"set", v} ---------- */
  function num(text) {
    if (!NUMBER.test(text)) return null;
    var isInt = !/[.eE]/.test(text);
    return { t: isInt ? "int" : "float", v: Number(text) };
  }
  function split(body) {
    var items = [], depth = 0, start = 0;
    for (var i = 0; i < body.length; i++) {
      var c = body[i];
      if ("([{".indexOf(c) >= 0) depth++;
      else if (")]}".indexOf(c) >= 0) depth--;
      else if (c === "," && depth === 0) { items.push(body.slice(start, i)); start = i + 1; }
    }
    var last = body.slice(start);
    if (last.trim() !== "" || items.length === 0) items.push(last);
    return items;
  }
  function value(text, percent) {
    text = text.trim();
    if (text === "True" || text === "False") return { t: "bool", v: text === "True" };
    var n = num(text);
    if (n) return n;
    var frac = /^(.+)\/(.+)$/.exec(text);
    if (frac && num(frac[1].trim()) && num(frac[2].trim()) && Number(frac[2]) !== 0) {
      return { t: "float", v: Number(frac[1]) / Number(frac[2]) };
    }
    if (percent && /%$/.test(text) && num(text.slice(0, -1).trim())) {
      return { t: "float", v: Number(text.slice(0, -1)) / 100 };
    }
    var open = text[0], close = { "(": ")", "[": "]", "{": "}" }[open];
    var body = null, type = "tuple";
    if (close && text[text.length - 1] === close) {
      body = text.slice(1, -1);
      type = { "(": "tuple", "[": "list", "{": "set" }[open];
    } else if (text.indexOf(",") >= 0) {
      body = text;
    }
    if (body !== null) {
      var parts = body.trim() === "" ? [] : split(body);
      var items = parts.map(function (p) { return value(p, false); });
      if (items.every(function (x) { return x.t !== "str"; })) {
        if (type === "tuple" && open === "(" && parts.length === 1 && !/,\s*$/.test(body)) {
          return items[0]; /* (13) is 13 */
        }
        return { t: type, v: items };
      }
    }
    return { t: "str", v: text };
  }

  /* normalize: one-element lists and tuples are their item; sets keep their items */
  function normalize(x) {
    if ((x.t === "list" || x.t === "tuple") && x.v.length === 1) return normalize(x.v[0]);
    if (x.t === "list" || x.t === "tuple") return { t: "tuple", v: x.v.map(normalize) };
    if (x.t === "set") return { t: "set", v: x.v.map(normalize) };
    return x;
  }

  /* --- describe, as Python's describe() words it ------------------------------------- */
  function pyFloat(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e16) return v.toFixed(1);
    if (v !== 0 && (Math.abs(v) >= 1e16 || Math.abs(v) < 1e-4)) {
      return v.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
    }
    return String(v);
  }
  function repr(x) {
    if (x.t === "int") return String(x.v);
    if (x.t === "float") return pyFloat(x.v);
    if (x.t === "bool") return x.v ? "True" : "False";
    if (x.t === "str") {
      var q = x.v.indexOf("'") >= 0 && x.v.indexOf('"') < 0 ? '"' : "'";
      var s = q + x.v + q; /* reprlib: at most 40 characters, the middle cut */
      return s.length > 40 ? s.slice(0, 18) + "..." + s.slice(s.length - 19) : s;
    }
    var shown = x.v.slice(0, 6).map(repr);
    if (x.v.length > 6) shown.push("...");
    var inner = shown.join(", ");
    if (x.t === "tuple") return "(" + inner + (x.v.length === 1 ? ",)" : ")");
    if (x.t === "list") return "[" + inner + "]";
    return "{" + inner + "}";
  }
  function describe(x) {
    var scalar = { int: "an int", float: "a float", bool: "a bool", str: "a str" }[x.t];
    if (scalar) return scalar + " (" + repr(x) + ")";
    if (x.t === "set") {
      var ints = x.v.every(function (i) { return i.t === "int"; });
      if (!ints) return "a set";
      var sorted = x.v.slice().sort(function (a, b) { return a.v - b.v; });
      var shown = sorted.slice(0, 6).map(repr).join(", ");
      return "a set ({" + shown + (x.v.length > 6 ? ", ..." : "") + "})";
    }
    if (x.v.length === 0) return "a " + x.t;
    var simple = x.v.every(function (i) { return ["int", "float", "bool"].indexOf(i.t) >= 0; });
    if (simple) return "a " + x.t + " " + repr({ t: "tuple", v: x.v });
    var kinds = [];
    x.v.forEach(function (i) { if (kinds.indexOf(i.t) < 0) kinds.push(i.t); });
    return "a " + x.t + " of " + x.v.length + " items (" + kinds.sort().join(", ") + ")";
  }

  /* --- the spec's rules, as _rules.py applies them ----------------------------------- */
  function asInt(x) {
    if (x.t === "int") return x.v;
    if (x.t === "float" && Number.isInteger(x.v)) return x.v;
    return null;
  }
  function asNumber(x) { return x.t === "int" || x.t === "float" ? x.v : null; }
  function unpair(x) {
    return x.t === "tuple" && x.v.length === 2 && x.v[0].v === x.v[1].v ? x.v[0] : x;
  }
  function parse(spec, x) {
    if (spec.kind === "bool") return x.t === "bool" ? x.v : null;
    if (spec.kind === "int") return asInt(x);
    if (spec.kind === "number") return asNumber(x);
    if (spec.kind === "int_set") {
      var items = x.t === "tuple" || x.t === "set" ? x.v : [x];
      var ints = items.map(asInt);
      return ints.indexOf(null) >= 0 ? null : ints;
    }
    if (x.t !== "tuple" || x.v.length !== spec.answer.length) return null;
    var got = x.v.map(function (i) { return asInt(spec.pairs ? unpair(i) : i); });
    return got.indexOf(null) >= 0 ? null : got;
  }
  function sameSet(a, b) {
    var u = function (l) { return l.filter(function (v, i) { return l.indexOf(v) === i; }).sort(); };
    return JSON.stringify(u(a)) === JSON.stringify(u(b));
  }
  function equal(spec, got, target, tol) {
    if (spec.kind === "number") return Math.abs(got - target) <= tol;
    if (spec.kind === "int_set") return sameSet(got, target);
    return JSON.stringify(got) === JSON.stringify(target);
  }
  function isRight(spec, got) {
    if (spec.kind !== "number") return equal(spec, got, spec.answer, 0);
    if (Math.abs(got - spec.answer) <= spec.tol + spec.rel * Math.abs(spec.answer)) return true;
    return spec.accepted.some(function (a) { return Math.abs(got - a) <= 1e-12; });
  }
  function matches(spec, rule, got) {
    if (rule.equals !== null && !equal(spec, got, rule.equals, rule.tol)) return false;
    if (rule.low !== null || rule.high !== null) {
      var inside = (rule.low === null || got >= rule.low) && (rule.high === null || got <= rule.high);
      if (inside === rule.outside) return false;
    }
    return rule.item === null || got[rule.item] !== spec.answer[rule.item];
  }
  function hint(spec, text) {
    var given = value(text, spec.percent);
    var x = normalize(given);
    if ((x.t === "int" || x.t === "float") && !isFinite(x.v)) return DATA.not_finite;
    var got = parse(spec, x);
    if (got === null) return "expected " + spec.expects + ", got " + describe(given);
    if (isRight(spec, got)) return null;
    for (var i = 0; i < spec.rules.length; i++) {
      if (matches(spec, spec.rules[i], got)) return spec.rules[i].hint.replace("{answer}", got);
    }
    return spec.default;
  }
  function verdict(id, text) {
    var h = hint(DATA.specs[id], text);
    var line = h === null ? DATA.verdict.right : DATA.verdict.hint.replace("{hint}", h);
    return line.replace("{id}", id);
  }
  window.vxExercises = { verdict: verdict };

  /* --- a choice (predictions): one of a few letters, as _rules.grade_choice grades it ------ */
  function choiceHint(spec, text) {
    var letter = text.trim().replace(/^[().]+|[().]+$/g, "").trim().toLowerCase();
    var letters = "abcdefgh".slice(0, spec.options.length);
    if (letter.length !== 1 || letters.indexOf(letter) < 0) {
      return "expected " + spec.expects + ", got " + describe(value(text, false));
    }
    if (letter === spec.answer) return null;
    for (var i = 0; i < spec.rules.length; i++) {
      if (spec.rules[i].equals === letter) return spec.rules[i].hint.replace("{answer}", "'" + letter + "'");
    }
    return spec.default;
  }

  /* --- predictions and warm-ups: the line vx.exercises.check prints for them ------------- */
  function promptVerdict(id, text) {
    var spec = DATA.specs[id], info = DATA.prompts[id], line = DATA.prompt_verdict[info.kind];
    var h = spec.kind === "choice" ? choiceHint(spec, text) : hint(spec, text);
    line = h === null ? line.right : line.hint.replace("{hint}", function () { return h; });
    return line.replace("{id}", id).replace("{why}", function () { return info.why; });
  }
  window.vxExercises.promptVerdict = promptVerdict;

  /* --- the forms --------------------------------------------------------------------- */
  document.querySelectorAll("form.vx-answer").forEach(function (form) {
    var input = form.querySelector("input"), out = form.querySelector(".vx-verdict");
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.dataset.exercise;
      out.textContent = input.value.trim() === ""
        ? "Exercise " + id + ": no answer yet: type yours, then press Enter or Check."
        : verdict(id, input.value);
      out.className = "vx-verdict " + (/: right\.$/.test(out.textContent) ? "vx-right" : "vx-not-yet");
    });
  });

  /* A warm-up's form grades like an exercise's. A prediction's form also hides the output of
     the next notebook cell (the reveal) until the learner checks a guess or presses Show me;
     without JavaScript the form stays hidden and the output shown. */
  document.querySelectorAll("form.vx-prompt").forEach(function (form) {
    var id = form.dataset.exercise, out = form.querySelector(".vx-verdict");
    var reveal = null, note = form.querySelector(".vx-reveal-note");
    if (form.classList.contains("vx-predict")) {
      var next = form.closest(".vx-prompt-box").nextElementSibling;
      while (next && !(next.classList.contains("cell") && next.querySelector(".cell_output"))) {
        next = next.nextElementSibling;
      }
      reveal = next && next.querySelector(".cell_output");
      if (reveal) { reveal.hidden = true; note.hidden = false; }
    }
    function show() {
      if (reveal) { reveal.hidden = false; note.hidden = true; }
    }
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var checked = form.querySelector("input[type=radio]:checked");
      var text = checked ? checked.value : (form.querySelector("input[type=text]") || {}).value || "";
      if (text.trim() === "") {
        out.textContent = DATA.prompt_verdict[DATA.prompts[id].kind].none.replace("{id}", id);
        out.className = "vx-verdict vx-not-yet";
        return;
      }
      out.textContent = promptVerdict(id, text);
      out.className = "vx-verdict " + (/: right\./.test(out.textContent) ? "vx-right" : "vx-not-yet");
      show();
    });
    var button = form.querySelector("button.vx-show");
    if (button) {
      button.addEventListener("click", function () {
        out.textContent = "Prediction " + id + ": " + DATA.prompts[id].why;
        out.className = "vx-verdict";
        show();
      });
    }
  });
})();
