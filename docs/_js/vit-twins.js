/* Notebook 08's ViT, live in the page (6 of 7): the twin models and Scramble. The model of the
 * notebook (learned position, digits_vit_learned.pt) and its twin without any position
 * embedding (digits_vit_none.pt, trained by the same recipe) read the same picture; Scramble
 * shuffles its 16 patches. Without position, attention is a function of the set of tokens, not
 * of their order: the twin's answer does not move (to the last bits of float64, as sums are
 * added in another order), while the model with position reads a picture it never saw.
 *
 * Function declarations only (the page's script runs in a worker too, which needs none of
 * this). Needs: forward and softmax (vit.js); from vit-page.js, at call time, the page's state,
 * `result`, `$`, drawGrid, colour, GREYS and fmt.
 */

  /** The order of the patches after shuffle number `seed` (1, 2, ...): a permutation of
   * 0..n-1 by Fisher-Yates, from the Park-Miller generator seeded with `seed`; place i of the
   * scrambled picture holds patch order[i] of the picture. Never the identity. */
  function shuffled(seed, n) {
    let x = seed % 2147483646 + 1;
    const random = () => (x = (x * 16807) % 2147483647) / 2147483647; // in (0, 1)
    const order = Array.from({ length: n }, (_, i) => i);
    while (order.every((v, i) => v === i)) {
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
    }
    return order;
  }

  /** A picture (64 pixels, row-major) with its patches moved: place i gets patch order[i]. */
  function scramble(model, image, order) {
    const P = model.patchSize, g = model.gridSize, W = g * P, out = new Float64Array(image.length);
    order.forEach((from, to) => {
      for (let i = 0; i < P; i++) {
        for (let j = 0; j < P; j++) {
          const row = i + P * Math.floor(to / g), col = j + P * (to % g);
          out[row * W + col] = image[(i + P * Math.floor(from / g)) * W + j + P * (from % g)];
        }
      }
    });
    return out;
  }

  /** Both models on the picture in order and, when `order` is not null, scrambled: logits
   * and probabilities of each, {learned: {inOrder, scrambled}, none: {...}}, each {logits,
   * probs} or null. `inOrder`: the learned model's logits already computed, or null. */
  function twinAnswers(models, image, order, inOrder) {
    const answer = (model, picture) => {
      const logits = forward(model, picture, 1).logits[0];
      return { logits: logits, probs: softmax(logits) };
    };
    const scrambled = order ? scramble(models.learned, image, order) : null;
    return {
      learned: {
        inOrder: inOrder ? { logits: inOrder, probs: softmax(inOrder) }
          : answer(models.learned, image),
        scrambled: scrambled ? answer(models.learned, scrambled) : null,
      },
      none: {
        inOrder: answer(models.none, image),
        scrambled: scrambled ? answer(models.none, scrambled) : null,
      },
      picture: scrambled || image,
    };
  }

  /** "reads 3 (0.99)": the class a model reads and its probability. */
  function reading(probs) {
    const top = probs.indexOf(Math.max(...probs));
    return { top: top, text: "reads " + top + " (" + probs[top].toFixed(2) + ")" };
  }

  /** The twins' part of the page: the picture they see, the table, the order and the status. */
  function renderTwins() {
    const twins = result.twins, order = state.order, g = model.gridSize;
    const canvas = $("scrambled"), ctx = canvas.getContext("2d");
    drawGrid(canvas, twins.picture, SIDE, (v) => colour(GREYS, v));
    ctx.strokeStyle = "#888";
    for (let k = 1; k < g; k++) { // the patches' borders
      const at = Math.round((k * canvas.width) / g) + 0.5;
      ctx.beginPath();
      ctx.moveTo(at, 0); ctx.lineTo(at, canvas.height);
      ctx.moveTo(0, at); ctx.lineTo(canvas.width, at);
      ctx.stroke();
    }
    const orderText = order
      ? "Shuffle " + state.seed + ": the patches (numbered 1–16 row by row) now sit in the " +
        "order " + order.map((p) => p + 1).join(" ") + "."
      : "In order: no shuffle yet (or put back).";
    $("order").textContent = orderText;
    canvas.setAttribute("aria-label", "The picture the twin models read, " +
      (order ? "its patches scrambled by shuffle " + state.seed : "in order") + ".");
    const cells = $("twins").tBodies[0].rows;
    ["learned", "none"].forEach((name, column) => {
      cells[0].cells[column + 1].textContent = reading(twins[name].inOrder.probs).text;
      cells[1].cells[column + 1].textContent = twins[name].scrambled
        ? reading(twins[name].scrambled.probs).text : "—";
    });
    const learned = reading(twins.learned.inOrder.probs), none = reading(twins.none.inOrder.probs);
    if (!order) {
      $("twin-status").textContent = "In order: the model with position " + learned.text +
        ", the model without position " + none.text + ".";
      return;
    }
    const after = twins.learned.scrambled.probs, noneAfter = twins.none.scrambled.probs;
    const moved = Math.max(...noneAfter.map((p, k) => Math.abs(p - twins.none.inOrder.probs[k])));
    $("twin-status").textContent = "Scrambled by shuffle " + state.seed + ": the model with " +
      "position now " + reading(after).text + ", and gives " + learned.top + " " +
      fmt(after[learned.top]) + " (in order it " + learned.text + "); the model without " +
      "position " + reading(noneAfter).text + ", as in order (its probabilities moved by " +
      (moved === 0 ? "0" : "at most " + moved.toExponential(1)) + ").";
  }
