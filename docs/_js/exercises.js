/* The site's exercise grader: the same value specs and the same hints as vx.exercises.check.
   Each step mirrors the package: read the typed text as Python reads it (_typed.read, one
   number grammar), normalize it (_rules.normalize), read it in the spec's kind (parse), then
   is_right, the rules in order, and the default hint. Nothing is sent or stored. Inlined by
   docs/_ext/vx_exercises.py. */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("vx-exercises-data").textContent);

  /* --- text -> value: the grammar of vitexplain/exercises/_typed.py -------------------
     Python's literal syntax (94_714, 0.5, 1e-3, True, tuples, lists, sets) and + - * / ** on
     numbers, read as Python reads them; any other text stays the text (a str). A value is
     {t: "int"|"float"|"bool"|"str"|"tuple"|"list"|"set", v}; ints are exact (BigInt while
     read, a Number when it is safe). Messages from DATA.typed, as _typed.MESSAGES has them. */
  var LIMIT = BigInt(10) ** BigInt(308), MAX_ITEMS = 64, MAX_DEPTH = 8;
  var DIGITS = "\\d(?:_?\\d)*";
  var NUMBER_TOKEN = new RegExp(
    "(?:(?:" + DIGITS + ")?\\." + DIGITS + "|" + DIGITS + "\\.)(?:[eE][+-]?" + DIGITS + ")?" +
    "|" + DIGITS + "[eE][+-]?" + DIGITS +
    "|0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+" +
    "|[1-9](?:_?\\d)*|0+(?:_?0)*", "y");
  function Unusable(message) { this.message = message; }
  var NOT_ANSWER = {};  /* thrown for text outside the grammar */

  function tokens(text) {
    var found = [], i = 0, depth = 0;
    while (i < text.length) {
      var c = text[i];
      if (c === " " || c === "\t" || c === "\f") { i++; continue; }
      if (c === "#") break;  /* a comment */
      NUMBER_TOKEN.lastIndex = i;
      var number = NUMBER_TOKEN.exec(text);
      if (number && /[\d.]/.test(c)) {
        i += number[0].length;
        if (i < text.length && /[\w.]/.test(text[i])) throw NOT_ANSWER;  /* 0777, 1_, 1j */
        var plain = number[0].replace(/_/g, "");
        var isInt = /^0[xob]/i.test(plain) || !/[.eE]/.test(plain);
        found.push(isInt ? { t: "int", v: BigInt(plain) } : { t: "float", v: Number(plain) });
        continue;
      }
      var name = /^[A-Za-z_]\w*/.exec(text.slice(i));
      if (name) { found.push({ op: name[0] }); i += name[0].length; continue; }
      var two = text.slice(i, i + 2), op = two === "**" || two === "//" ? two : c;
      if ("([{".indexOf(op) >= 0 && ++depth >= 200) throw NOT_ANSWER;  /* Python's limit */
      if (")]}".indexOf(op) >= 0) depth--;
      found.push({ op: op });
      i += op.length;
    }
    return found;
  }

  function checked(x) {
    if (x.t === "float") {
      if (isNaN(x.v)) throw NOT_ANSWER;  /* (-8) ** 0.5 is complex in Python */
      if (!isFinite(x.v) || Math.abs(x.v) >= LIMIT) throw new Unusable(DATA.typed.too_large);
    } else if ((x.v < 0 ? -x.v : x.v) >= LIMIT) {
      throw new Unusable(DATA.typed.too_large);
    }
    return x;
  }
  function asOperand(x) {
    if (x.t === "bool") return { t: "int", v: BigInt(x.v ? 1 : 0) };
    if (x.t === "int" || x.t === "float") return x;
    throw NOT_ANSWER;  /* (1, 2) * 2 and the like */
  }
  function power(a, b) {
    var x = Number(a.v), y = Number(b.v);
    if (a.t === "int" && b.t === "int" && b.v >= 0) {
      var size = a.v < 0 ? -a.v : a.v;
      if (size > 1 && y * Math.log10(Number(size)) >= 308) throw new Unusable(DATA.typed.too_large);
      return { t: "int", v: a.v ** b.v };
    }
    if (x === 0 && y < 0) throw new Unusable(DATA.typed.by_zero);
    return { t: "float", v: Math.pow(x, y) };
  }
  function operate(op, a, b) {
    a = asOperand(a); b = asOperand(b);
    if (op === "**") return checked(power(a, b));
    if (op === "/") {
      if (Number(b.v) === 0) throw new Unusable(DATA.typed.by_zero);
      return checked({ t: "float", v: Number(a.v) / Number(b.v) });
    }
    if (a.t === "int" && b.t === "int") {
      return checked({ t: "int", v: op === "+" ? a.v + b.v : op === "-" ? a.v - b.v : a.v * b.v });
    }
    var x = Number(a.v), y = Number(b.v);
    return checked({ t: "float", v: op === "+" ? x + y : op === "-" ? x - y : x * y });
  }

  function hashable(x) {
    return x.t !== "list" && x.t !== "set" && (x.t !== "tuple" || x.v.every(hashable));
  }
  function same(a, b) {
    var numbers = ["int", "float", "bool"];
    /* 1 == 1.0 == True, as in a Python set */
    if (numbers.indexOf(a.t) >= 0 && numbers.indexOf(b.t) >= 0) return a.v == b.v;
    if (a.t !== b.t || a.t === "str") return a.t === b.t && a.v === b.v;
    return a.v.length === b.v.length &&
      a.v.every(function (item, i) { return same(item, b.v[i]); });
  }

  /* A recursive descent over the tokens, in Python's precedence: tuple < sum < term < unary
     minus < power < atom. */
  function parser(list) {
    var at = 0;
    function peek() { return at < list.length ? list[at].op || "number" : "end"; }
    function take(op) { if (peek() !== op) throw NOT_ANSWER; at++; }
    function items(closer) {
      var found = [], comma = false;
      while (peek() !== closer) {
        found.push(sum());
        if (peek() !== ",") break;
        take(","); comma = true;
      }
      return { items: found, comma: comma };
    }
    function atom() {
      var token = list[at++];
      if (!token) throw NOT_ANSWER;
      if (token.t) return checked(token);
      if (token.op === "True" || token.op === "False") return { t: "bool", v: token.op === "True" };
      var closer = { "(": ")", "[": "]", "{": "}" }[token.op];
      if (!closer) throw NOT_ANSWER;
      if (closer === "}" && peek() === "}") throw NOT_ANSWER;  /* {} is a dict */
      var inner = items(closer);
      take(closer);
      if (closer === ")") {
        var tuple = inner.comma || inner.items.length === 0;
        return tuple ? { t: "tuple", v: inner.items } : inner.items[0];
      }
      if (closer === "]") return { t: "list", v: inner.items };
      if (!inner.items.every(hashable)) throw NOT_ANSWER;
      var kept = [];
      inner.items.forEach(function (x) {
        if (!kept.some(function (k) { return same(k, x); })) kept.push(x);
      });
      return { t: "set", v: kept };
    }
    function powered() {
      var base = atom();
      if (peek() !== "**") return base;
      at++;
      return operate("**", base, unary());
    }
    function unary() {
      var op = peek();
      if (op !== "-" && op !== "+") return powered();
      at++;
      var x = asOperand(unary());
      return op === "+" ? x : checked({ t: x.t, v: -x.v });
    }
    function term() {
      var x = unary();
      while (peek() === "*" || peek() === "/") x = operate(list[at++].op, x, unary());
      return x;
    }
    function sum() {
      var x = term();
      while (peek() === "+" || peek() === "-") x = operate(list[at++].op, x, term());
      return x;
    }
    var top = items("end");
    if (at !== list.length || top.items.length === 0) throw NOT_ANSWER;
    return top.comma ? { t: "tuple", v: top.items } : top.items[0];
  }

  /* ints back to Numbers where that is exact */
  function settled(x) {
    if (x.t === "int" && x.v >= -Number.MAX_SAFE_INTEGER && x.v <= Number.MAX_SAFE_INTEGER) {
      return { t: "int", v: Number(x.v) };
    }
    if (x.t === "tuple" || x.t === "list" || x.t === "set") return { t: x.t, v: x.v.map(settled) };
    return x;
  }
  function read(text, percent) {
    text = text.trim();
    if (percent && /%$/.test(text)) {
      var number = read(text.slice(0, -1), false);
      if (number.t !== "int" && number.t !== "float") return { t: "str", v: text };
      return { t: "float", v: Number(number.v) / 100 };
    }
    try {
      return settled(parser(tokens(text)));
    } catch (error) {
      if (error === NOT_ANSWER) return { t: "str", v: text };
      throw error;
    }
  }

  /* 94,714 or 0,5 for a number: what Python reads, and what to write (_typed.comma_hint) */
  function commaHint(spec, text) {
    text = text.trim();
    if (spec.kind !== "int" && spec.kind !== "number") return null;
    if (!/^[+-]?\d+(,\d+)+$/.test(text)) return null;
    var sign = /^[+-]/.test(text) ? text[0] : "", groups = text.replace(/^[+-]/, "").split(",");
    var rest = groups.slice(1), fix;
    var thousands = groups[0] !== "0" && groups[0].length <= 3 &&
      rest.every(function (g) { return g.length === 3; });
    if (thousands) fix = sign + groups.join("") + " or " + sign + groups.join("_");
    else if (groups.length === 2) fix = sign + groups[0] + "." + groups[1];
    else return null;
    var python = groups.every(function (g) { return /^(0|[1-9]\d*)$/.test(g) || /^0+$/.test(g); });
    if (!python) return DATA.typed.not_python.replace("{text}", text).replace("{fix}", fix);
    var items = [sign + groups[0]].concat(rest).map(function (g) { return BigInt(g).toString(); });
    var shown = (items.length === 2 ? "a pair" : "a tuple") + " (" + items.join(", ") + ")";
    return DATA.typed.pair.replace("{text}", text).replace("{tuple}", shown).replace("{fix}", fix);
  }

  /* normalize (_rules.normalize): one-element lists and tuples are their item; sets keep
     their items; more than MAX_ITEMS items are left as they are */
  function normalize(x, depth) {
    if (depth > MAX_DEPTH) throw new Unusable(DATA.typed.too_deep);
    var many = x.t === "list" || x.t === "tuple" || x.t === "set";
    if (!many || x.v.length > MAX_ITEMS) return x;
    var items = x.v.map(function (i) { return normalize(i, depth + 1); });
    if (x.t === "set") return { t: "set", v: items };
    return items.length === 1 ? items[0] : { t: "tuple", v: items };
  }

  /* --- describe, as Python's describe() words it ------------------------------------- */
  function pyFloat(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e16) {
      return (Object.is(v, -0) ? "-" : "") + v.toFixed(1);
    }
    if (v !== 0 && (Math.abs(v) >= 1e16 || Math.abs(v) < 1e-4)) {
      return v.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
    }
    return String(v);
  }
  function cut(s, most) { /* reprlib: at most `most` characters, the middle cut */
    if (s.length <= most) return s;
    var i = Math.floor((most - 3) / 2);
    return s.slice(0, i) + "..." + s.slice(s.length - (most - 3 - i));
  }
  function bits(v) { return (v < 0 ? -BigInt(v) : BigInt(v)).toString(2).length; }
  function repr(x) {
    if (x.t === "int") return cut(String(x.v), 40);
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
  function scalarRepr(x) { /* _rules._scalar_repr */
    if (x.t === "int" && x.v !== 0 && bits(x.v) > 128) {
      return "about " + (Math.floor(bits(x.v) * Math.log10(2)) + 1) + " digits";
    }
    return repr(x);
  }
  function describe(x) {
    var scalar = { int: "an int", float: "a float", bool: "a bool", str: "a str" }[x.t];
    if (scalar) return scalar + " (" + scalarRepr(x) + ")";
    if (x.t === "set") {
      var ints = x.v.every(function (i) { return i.t === "int"; });
      if (!ints || x.v.length > MAX_ITEMS) return "a set";
      var sorted = x.v.slice().sort(function (a, b) { return a.v < b.v ? -1 : a.v > b.v ? 1 : 0; });
      var shown = sorted.slice(0, 6).map(scalarRepr).join(", ");
      return "a set ({" + shown + (x.v.length > 6 ? ", ..." : "") + "})";
    }
    if (x.v.length === 0 || x.v.length > MAX_ITEMS) return "a " + x.t;
    var simple = x.v.every(function (i) { return ["int", "float", "bool"].indexOf(i.t) >= 0; });
    if (simple) return "a " + x.t + " " + repr({ t: "tuple", v: x.v });
    var kinds = [];
    x.v.forEach(function (i) { if (kinds.indexOf(i.t) < 0) kinds.push(i.t); });
    return "a " + x.t + " of " + x.v.length + " items (" + kinds.sort().join(", ") + ")";
  }

  /* --- the spec's rules, as _rules.py applies them ----------------------------------- */
  function asInt(x) { /* an int (a Number, or a BigInt beyond 2**53), or null */
    if (x.t === "int") return x.v;
    if (x.t === "float" && Number.isInteger(x.v)) {
      return Number.isSafeInteger(x.v) ? x.v : BigInt(x.v);
    }
    return null;
  }
  function asNumber(x) { return x.t === "int" || x.t === "float" ? Number(x.v) : null; }
  function unpair(x) {
    return x.t === "tuple" && x.v.length === 2 && x.v[0].v == x.v[1].v ? x.v[0] : x;
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
  function within(a, b) {
    return a.every(function (v) { return b.some(function (w) { return v == w; }); });
  }
  function equal(spec, got, target, tol) {
    if (spec.kind === "number") return Math.abs(got - target) <= tol;
    if (spec.kind === "int_set") return within(got, target) && within(target, got);
    if (spec.kind === "int_tuple") {
      return got.length === target.length && got.every(function (v, i) { return v == target[i]; });
    }
    return got == target;  /* a BigInt equals a Number of the same value */
  }
  function isRight(spec, got) {
    if (spec.kind !== "number") return equal(spec, got, spec.answer, 0);
    if (Math.abs(got - spec.answer) <= spec.tol + spec.rel * Math.abs(spec.answer)) return true;
    return spec.accepted.some(function (a) { return Math.abs(got - a) <= 1e-12; });
  }
  function matches(spec, rule, got) {
    if (rule.equals !== null && !equal(spec, got, rule.equals, rule.tol)) return false;
    if (rule.low !== null || rule.high !== null) {
      var inside = (rule.low === null || got >= rule.low) &&
        (rule.high === null || got <= rule.high);
      if (inside === rule.outside) return false;
    }
    return rule.item === null || got[rule.item] != spec.answer[rule.item];
  }
  function shownAnswer(spec, got) { /* the {answer} of a hint, as _scalar_repr shows it */
    if (spec.kind === "number") return pyFloat(got);
    if (spec.kind === "int") return scalarRepr({ t: "int", v: got });
    if (spec.kind === "bool") return got ? "True" : "False";
    return String(got);
  }
  function hint(spec, text) {
    var comma = commaHint(spec, text);
    if (comma !== null) return comma;
    var given, x;
    try {
      given = read(text, spec.percent);
      x = normalize(given, 0);
    } catch (error) {
      if (error instanceof Unusable) return error.message;
      throw error;
    }
    var got = parse(spec, x);
    if (got === null) return "expected " + spec.expects + ", got " + describe(given);
    if (isRight(spec, got)) return null;
    for (var i = 0; i < spec.rules.length; i++) {
      if (matches(spec, spec.rules[i], got)) {
        return spec.rules[i].hint.replace("{answer}", shownAnswer(spec, got));
      }
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
      var given = text;
      try { given = read(text, false); } catch (error) { if (!(error instanceof Unusable)) throw error; }
      return "expected " + spec.expects + ", got " + describe(given);
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
  window.vxExercises.patches = function (id, text) { /* an int_set as parse reads it, or null */
    try { return parse(DATA.specs[id], normalize(read(text, false), 0)); }
    catch (error) { if (error instanceof Unusable) return null; throw error; }
  };

  /* --- the forms --------------------------------------------------------------------- */
  function ordinal(n) {
    var tens = n % 100, ones = n % 10;
    if (tens > 10 && tens < 14) return n + "th";
    var end = ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
    return n + end;
  }
  /* The verdict line; the same verdict again is said again, counted, so that the page (and
     the live region, which announces a change) shows that the check ran. */
  function announce(out, line) {
    out.vxRepeats = line === out.vxLast ? (out.vxRepeats || 1) + 1 : 1;
    out.vxLast = line;
    var again = out.vxRepeats > 1 ? "Again (" + ordinal(out.vxRepeats) + " time): " : "";
    out.textContent = again + line;
    out.className = "vx-verdict " + (/: right\.$/.test(line) ? "vx-right" : "vx-not-yet");
  }
  document.querySelectorAll("form.vx-answer").forEach(function (form) {
    var input = form.querySelector("input"), out = form.querySelector(".vx-verdict");
    form.hidden = false;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.dataset.exercise;
      announce(out, input.value.trim() === ""
        ? "Exercise " + id + ": no answer yet: type yours, then press Enter or Check."
        : verdict(id, input.value));
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
