/* Notebook 08's ViT, live in the page (7 of 7): the page. It reads the weights and test
 * pictures from the page's JSON block, fills in the widget (docs/_ext/vx_vit.py writes its
 * markup): the class probabilities, the attention maps, rollout, occlusion, gradient-weighted
 * rollout of the class picked, the twin models and the logit lens, drawn with the notebook's
 * colour maps and named for screen readers; and the controls (the slider, the drawing grid by
 * pointer and keyboard, the class picker, Scramble). window.vxVit holds the functions it uses,
 * for the browser test and the curious reader's console.
 *
 * Needs: loadModel and forward (vit.js), analyse and its parts (vit-questions.js),
 * gradientRollout (vit-backward.js), the twins' functions (vit-twins.js),
 * `fast`, matmulT, linear and allocate (to show them), and from vit-worker.js update, the
 * worker and its measured costs.
 */

  // --- the page -----------------------------------------------------------------------------

  const dataNode = document.getElementById("vx-vit-data");
  if (!dataNode) return;
  const data = JSON.parse(dataNode.textContent);
  const model = loadModel(data);
  const twinNode = document.getElementById("vx-vit-twin"); // the twin without position
  const models = { learned: model, none: loadModel(JSON.parse(twinNode.textContent)) };
  const LEVELS = 16; // the digits' ink scale, 0..16; the model sees level / 16
  const SIDE = 8;
  function testPicture(k) {
    const text = data.test_images.slice(k * 64, (k + 1) * 64);
    return Array.from(text, (ch) => parseInt(ch, 17)); // ink levels 0..16
  }
  const pixels = (levels) => Float64Array.from(levels, (v) => v / LEVELS);
  // For the browser test and the curious reader's console: the functions the page uses.
  window.vxVit = {
    model: model, forward: forward, analyse: analyse, attentionRollout: attentionRollout,
    logitLens: logitLens, occlusionMap: occlusionMap, erf: erf, erfSeries: erfSeries,
    testPicture: testPicture, pixels: pixels, numPictures: data.test_labels.length,
    matmulT: matmulT, linear: linear, allocate: allocate, fast: fast,
    forwardKept: forwardKept, gradientRollout: gradientRollout, twin: models.none,
    shuffled: shuffled, scramble: scramble, twinAnswers: twinAnswers,
  };
  const root = document.getElementById("vx-vit");
  if (!root) return;
  const numPictures = data.test_labels.length;
  const slider = root.querySelector('[data-vx="slider"]');
  const $ = (name) => root.querySelector('[data-vx="' + name + '"]');
  // from: the test picture a drawing started from (null after Clear); why: the class picked
  // for gradient-weighted rollout (null: the one the model reads); order: the patches' order
  // after shuffle number `seed` (null: in order)
  const state = { levels: new Array(SIDE * SIDE).fill(0), picture: 0, drawn: false, cursor: 0,
    from: 0, why: null, order: null, seed: 0 };
  let result = null;

  // colour maps after the notebook's (magma for attention, RdBu_r for signed, Purples_r)
  const rgb = (s) => [1, 3, 5].map((k) => parseInt(s.slice(k, k + 2), 16)); // "#rrggbb"
  const MAGMA = ["#000004", "#51127c", "#b73779", "#fc8961", "#fcfdbf"].map(rgb);
  const RDBU = ["#053061", "#4393c3", "#f7f7f7", "#d6604d", "#67001f"].map(rgb);
  const PURPLES = ["#3f007d", "#6a51a3", "#9e9ac8", "#dadaeb", "#fcfbfd"].map(rgb);
  const GREYS = ["#ffffff", "#000000"].map(rgb);
  /** The colour at t in [0, 1] of a map through `stops` ([r, g, b] each), as [r, g, b]. */
  function colour(stops, t) {
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
    const a = stops[i], b = stops[i + 1];
    return a.map((v, k) => Math.round(v + f * (b[k] - v)));
  }
  const css = (c) => "rgb(" + c.join(",") + ")";
  function luminance(c) {
    const linear = (v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4); // sRGB
    const lin = c.map((v) => linear(v / 255));
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  }
  const textOn = (c) => (luminance(c) > 0.179 ? "#000" : "#fff"); // the higher contrast

  /** A side x side map on a canvas, one cell per value (a patch, or a pixel of the drawing):
   * the cells' colours as the pixels of a side x side image, drawn scaled up without smoothing
   * (one image instead of a rectangle a cell, and no colour string to parse). */
  const scratch = new Map(); // side -> a side x side canvas, off the page
  function drawGrid(canvas, values, side, toColour) {
    if (!scratch.has(side)) {
      const small = Object.assign(document.createElement("canvas"), { width: side, height: side });
      scratch.set(side, small);
    }
    const image = new ImageData(side, side);
    for (let i = 0; i < side * side; i++) image.data.set(toColour(values[i]).concat(255), 4 * i);
    const small = scratch.get(side);
    small.getContext("2d").putImageData(image, 0, 0);
    const ctx = canvas.getContext("2d");
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(small, 0, 0, canvas.width, canvas.height);
  }

  const where = (i, side) => "row " + (Math.floor(i / side) + 1) + ", column " + ((i % side) + 1);
  const fmt = (v) => (Math.abs(v) < 0.005 ? "0.00" : v.toFixed(2)).replace("-0.00", "0.00");
  /** "most on row 1, column 2 (0.31), then ..." for the largest values of a map. */
  function largest(values, side, count) {
    const order = values.map((v, i) => i).sort((a, b) => values[b] - values[a] || a - b);
    const top = order.slice(0, count);
    return top.map((i) => where(i, side) + " (" + fmt(values[i]) + ")").join(", then ");
  }

  function drawPicture() {
    const canvas = $("draw"), ctx = canvas.getContext("2d"), cell = canvas.width / SIDE;
    drawGrid(canvas, state.levels, SIDE, (v) => colour(GREYS, v / LEVELS));
    ctx.strokeStyle = "#888";
    ctx.lineWidth = 1;
    for (let k = 1; k < SIDE; k++) {
      const at = Math.round(k * cell) + 0.5, major = k % model.patchSize === 0;
      ctx.globalAlpha = major ? 0.9 : 0.3; // patch borders stronger than pixel borders
      ctx.beginPath();
      ctx.moveTo(at, 0); ctx.lineTo(at, canvas.height);
      ctx.moveTo(0, at); ctx.lineTo(canvas.width, at);
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    if (state.focused) { // the keyboard cursor
      const r = Math.floor(state.cursor / SIDE), c = state.cursor % SIDE;
      ctx.lineWidth = 3;
      ctx.strokeStyle = "#e66100";
      ctx.strokeRect(c * cell + 2, r * cell + 2, cell - 4, cell - 4);
    }
    const inked = state.levels.filter((v) => v > 0).length;
    const rows = [];
    for (let r = 0; r < SIDE; r++) {
      rows.push(state.levels.slice(r * SIDE, (r + 1) * SIDE).join(" "));
    }
    canvas.setAttribute(
      "aria-label",
      "Drawing grid, 8 by 8 pixels, " + inked + " with ink. Arrow keys move the cursor (now " +
        where(state.cursor, SIDE) + ", ink " + state.levels[state.cursor] + "), Space toggles ink.",
    );
    $("draw-levels").textContent = "Ink levels, row by row: " + rows.join("; ") + ".";
  }

  function render() {
    const T = model.numTokens + 1, g = model.gridSize, h = model.numHeads, r = result;
    const label = state.drawn ? null : +data.test_labels[state.picture];
    const empty = state.levels.every((v) => v === 0);
    const from = state.from === null ? "" : " (started from test picture " + state.from + ")";
    $("picture-text").textContent = !state.drawn
      ? "test picture " + state.picture + " of 0–" + (numPictures - 1) + ", label " + label
      : empty ? "an empty grid" : "your drawing" + from;
    // class probabilities
    const bars = $("probs");
    r.probs.forEach((p, k) => {
      const item = bars.children[k];
      item.querySelector(".vx-vit-bar").style.width = (100 * p).toFixed(1) + "%";
      item.querySelector(".vx-vit-value").textContent = p.toFixed(3);
      item.classList.toggle("vx-vit-top", k === r.predicted);
    });
    const picture = state.drawn
      ? "Your drawing"
      : "Test picture " + state.picture + " (a " + label + ")";
    $("status").textContent = empty
      ? "The grid is empty: draw a digit on it, or pick a test picture. (The bars below are " +
        "the model's answer to a blank picture, which is no digit: a classifier always names " +
        "one of its 10 classes.)"
      : picture + ": the model reads " + r.predicted + " with probability " +
        r.probs[r.predicted].toFixed(2) + ".";
    // every head of every block: the chosen query's row over the 16 patches
    const query = +$("query").value;
    const rows = r.maps.map((w) => Array.from({ length: h }, (_, head) =>
      Array.from(w.subarray((head * T + query) * T + 1, (head * T + query + 1) * T))));
    const top = Math.max(...rows.flat(2));
    const who = query === 0 ? "the class token" : "patch " + where(query - 1, g);
    rows.forEach((heads, block) => heads.forEach((values, head) => {
      const canvas = root.querySelector('[data-vx-map="' + block + "-" + head + '"]');
      drawGrid(canvas, values, g, (v) => colour(MAGMA, v / top));
      const weight = (key) => fmt(r.maps[block][(head * T + query) * T + key]);
      const others = query === 0
        ? "; to itself " + weight(0)
        : "; to the class token " + weight(0) + ", to itself " + weight(query);
      canvas.setAttribute("aria-label", "Block " + (block + 1) + ", head " + (head + 1) + ": " +
        who + " attends most to " + largest(values, g, 2) + others + ".");
    }));
    $("attn-scale").textContent = fmt(top);
    $("attn-who").textContent = who;
    // rollout: the class token's row of R over the patches
    const looks = r.rollout[0].slice(1);
    drawGrid($("rollout"), looks, g, (v) => colour(MAGMA, v / Math.max(...looks)));
    $("rollout").setAttribute("aria-label", "Rollout, the class token's row over the 16 " +
      "patches: most from " + largest(looks, g, 3) + "; from the class token itself " +
      fmt(r.rollout[0][0]) + ".");
    $("rollout-scale").textContent = fmt(Math.max(...looks));
    // logit lens table
    r.lens.forEach((probs, block) => {
      const cells = $("lens").rows[block + 1].cells;
      const best = probs.indexOf(Math.max(...probs));
      probs.forEach((p, k) => {
        const cell = cells[k + 1], c = colour(PURPLES, 1 - p);
        cell.textContent = p.toFixed(2);
        cell.style.background = css(c);
        cell.style.color = textOn(c);
        cell.classList.toggle("vx-vit-top", k === best);
      });
    });
    drawPicture();
    renderWhy();
    renderTwins();
    if (r.occlusion) renderOcclusion();
  }

  /** Gradient-weighted rollout of the class picked: the map and the sentence that names it. */
  function renderWhy() {
    const g = model.gridSize, r = result, map = r.whyRollout[0].slice(1), c = r.why;
    const top = Math.max(...map);
    drawGrid($("why-map"), map, g, (v) => colour(MAGMA, v / Math.max(top, 1e-12)));
    const reads = c === r.predicted ? "the class the model reads" : "the model reads " +
      r.predicted;
    const text = "Why " + c + "? (probability " + fmt(r.probs[c]) + "; " + reads + ") " +
      (top > 0 ? "Gradient-weighted rollout of class " + c + ": most from " +
        largest(map, g, 3) + "; from the class token itself " + fmt(r.whyRollout[0][0]) + "."
        : "Every gradient-weighted attention weight is 0 or less: no patch stands out.");
    $("why-status").textContent = text;
    $("why-map").setAttribute("aria-label", text);
    $("why-scale").textContent = fmt(top);
  }

  /** The occlusion map, once it is in (it may come from the worker after the rest). */
  function renderOcclusion() {
    const g = model.gridSize, r = result;
    const span = Math.max(1e-12, ...r.occlusion.map(Math.abs));
    drawGrid($("occlusion"), r.occlusion, g, (v) => colour(RDBU, 0.5 + v / span / 2));
    $("occlusion").setAttribute("aria-label", "Occlusion map of class " + r.predicted +
      ": hiding a patch costs most at " + largest(r.occlusion, g, 3) + "; the largest gain " +
      fmt(Math.max(0, -Math.min(...r.occlusion))) + ".");
    $("occlusion-scale").textContent = fmt(span);
  }

  function showPicture(k) {
    slider.value = String(k);
    state.picture = k;
    state.from = k;
    state.levels = testPicture(k);
    state.drawn = false;
    return update();
  }

  function setPixel(i, level) {
    if (state.levels[i] === level) return;
    state.levels[i] = level;
    state.drawn = true;
    update();
  }
  // Ink paints level 16, the darkest of the digits' 0..16 (the model sees 16 / 16 = 1);
  // on a pixel that has ink it erases to 0.
  const toggled = (i) => (state.levels[i] > 0 ? 0 : LEVELS);

  // --- controls -----------------------------------------------------------------------------

  slider.max = String(numPictures - 1);
  slider.addEventListener("input", () => showPicture(+slider.value));
  $("clear").addEventListener("click", () => {
    state.levels.fill(0);
    state.drawn = true;
    state.from = null;
    update();
  });
  $("why").addEventListener("change", () => { // a new class: only its map is computed again
    state.why = $("why").value === "auto" ? null : +$("why").value;
    result.why = state.why === null ? result.predicted : state.why;
    result.whyRollout = gradientRollout(model, result.run, result.why);
    renderWhy();
  });
  $("scramble").addEventListener("click", () => {
    state.seed += 1;
    state.order = shuffled(state.seed, model.numTokens);
    update();
  });
  $("unscramble").addEventListener("click", () => {
    state.order = null;
    update();
  });
  $("query").addEventListener("change", render);

  const canvas = $("draw");
  let painting = null; // the level a pointer stroke paints
  function cellAt(event) {
    const box = canvas.getBoundingClientRect();
    const c = Math.floor(((event.clientX - box.left) / box.width) * SIDE);
    const r = Math.floor(((event.clientY - box.top) / box.height) * SIDE);
    return r >= 0 && r < SIDE && c >= 0 && c < SIDE ? r * SIDE + c : -1;
  }
  canvas.addEventListener("pointerdown", (event) => {
    const i = cellAt(event);
    if (i < 0) return;
    event.preventDefault();
    canvas.focus();
    canvas.setPointerCapture(event.pointerId);
    painting = toggled(i);
    state.cursor = i;
    setPixel(i, painting);
  });
  canvas.addEventListener("pointermove", (event) => {
    const i = painting === null ? -1 : cellAt(event);
    if (i >= 0) {
      state.cursor = i;
      setPixel(i, painting);
    }
  });
  const stop = () => { painting = null; };
  canvas.addEventListener("pointerup", stop);
  canvas.addEventListener("pointercancel", stop);
  canvas.addEventListener("keydown", (event) => {
    const r = Math.floor(state.cursor / SIDE), c = state.cursor % SIDE;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (event.key in moves) {
      const [dr, dc] = moves[event.key];
      const inside = (v) => Math.min(SIDE - 1, Math.max(0, v));
      state.cursor = inside(r + dr) * SIDE + inside(c + dc);
      drawPicture();
      $("cursor").textContent = where(state.cursor, SIDE) + ", ink " + state.levels[state.cursor];
    } else if (event.key === " " || event.key === "Enter") {
      setPixel(state.cursor, toggled(state.cursor));
      $("cursor").textContent = where(state.cursor, SIDE) + ", ink " + state.levels[state.cursor];
    } else {
      return;
    }
    event.preventDefault();
  });
  canvas.addEventListener("focus", () => { state.focused = true; drawPicture(); });
  canvas.addEventListener("blur", () => { state.focused = false; drawPicture(); });

  worker = startWorker();
  if (!worker) ready(false);
  window.vxVit.workerReady = workerReady;
  window.vxVit.update = update;
  window.vxVit.showPicture = showPicture; // returns the promise `written` of its update
  window.vxVit.written = () => written;
  window.vxVit.shown = () => result; // what the page shows
  window.vxVit.usesWorker = () => worker !== null;
  window.vxVit.kernels = () => ({ page: fast !== null, worker: worker !== null && workerKernel });
  window.vxVit.cost = cost; // ms per occlusion run on each thread, ms of the rest, as measured
  root.hidden = false;
  showPicture(0);
