/* Notebook 08's ViT, live in the page (4 of 7): the questions asked of the model, after
 * vitexplain/interpret.py: attention and rollout, the logit lens, occlusion, and `analyse`, all
 * the page shows of one picture. The occlusion runs (one forward pass per inked patch, most of
 * the work) take shortcuts that give what ViT.forward on the occluded copies gives: block 1's
 * q, k, v computed once, and the last block for the class token alone (which needs the model's
 * qkv to have no bias: scripts/export_site_vit.py asserts it).
 *
 * Needs from vit.js: the layers (linear, layerNorm, add, addMlp, blockForward), embed,
 * headLogits, classToken, softmax and buffer; from vit-backward.js: forwardKept and
 * gradientRollout.
 */

  // --- the occlusion runs: ViT.forward on copies of one picture, with less work --------------

  /** The logits (B, K) of copies of one picture (64 pixels), copy b with patch patches[b]
   * hidden (set to 0): what forward on the copies gives, from the same steps, but
   *  - in block 1 a copy's tokens are the picture's but one: so are its q, k, v, computed once
   *    for the picture and once for the hidden patches (the picture with every patch hidden
   *    holds at each place that patch's hidden token);
   *  - in the last block only the class token goes on (the head reads nothing else), and
   *    without its query's keys and values token by token (classTokenBlock). */
  function occludedLogits(model, image, patches) {
    const B = patches.length, T = model.numTokens + 1, D = model.embedDim, h = model.numHeads;
    const first = model.blocks[0], last = model.blocks[model.blocks.length - 1]; // depth >= 2
    const picture = embed(model, image, 1); // (1, T, D)
    const hidden = embed(model, new Float64Array(image.length), 1); // (1, T, D)
    const qkvOf = (x, name) => { // block 1's q, k, v of one picture's tokens, (T, 3D)
      return linear(first.attn.qkv, layerNorm(first.norm1, x, T, "norm"), T, name);
    };
    const pictureQkv = qkvOf(picture, "picture qkv"), hiddenQkv = qkvOf(hidden, "hidden qkv");
    const x = buffer("copies", B * T * D), qkv = buffer("copies qkv", B * T * 3 * D);
    patches.forEach((patch, b) => {
      const t = patch + 1; // its token: the patches follow the class token
      x.set(picture, b * T * D);
      x.set(hidden.subarray(t * D, (t + 1) * D), (b * T + t) * D);
      qkv.set(pictureQkv, b * T * 3 * D);
      qkv.set(hiddenQkv.subarray(t * 3 * D, (t + 1) * 3 * D), (b * T + t) * 3 * D);
    });
    blockForward(first, x, B, T, h, qkv, null);
    for (const layer of model.blocks.slice(1, -1)) blockForward(layer, x, B, T, h, null, null);
    return headLogits(model, classTokenBlock(last, x, B, T, h), B);
  }

  /** Block.forward on x (B, T, D) for the class token alone -> (B, D). Every token still gives
   * a key and a value, but they need not be computed one by one: with y = norm1(x) and no qkv
   * bias (qkv_bias=False), per head q . k_j = q . (W_k y_j) = (W_k^T q) . y_j, and
   * sum over j of a_j v_j = W_v (sum over j of a_j y_j): one product with W_k^T and one with W_v
   * per head instead of a key and a value per token. */
  function classTokenBlock(block, x, B, T, h) {
    const D = block.attn.proj.in, d = D / h, scale = d ** -0.5;
    const W = block.attn.qkv.weight; // (3D, D): the rows of W_q, then of W_k, then of W_v
    const y = layerNorm(block.norm1, x, B * T, "norm"); // (B, T, D)
    const attended = buffer("attended", B * D); // (B, h d): the class token's attention output
    const u = new Float64Array(D), z = new Float64Array(D), a = new Float64Array(T);
    for (let b = 0; b < B; b++) {
      const y0 = b * T * D; // the picture's class token in y, followed by its patches
      for (let head = 0; head < h; head++) {
        u.fill(0);
        for (let c = 0; c < d; c++) { // u = W_k^T q * scale, with q = W_q y_0 (d,)
          let q = 0;
          for (let e = 0; e < D; e++) q += W[(head * d + c) * D + e] * y[y0 + e];
          for (let e = 0; e < D; e++) u[e] += q * scale * W[(D + head * d + c) * D + e];
        }
        let top = -Infinity, total = 0;
        for (let j = 0; j < T; j++) { // a_j = q . k_j * scale = u . y_j, then softmax over j
          let s = 0;
          for (let e = 0; e < D; e++) s += u[e] * y[y0 + j * D + e];
          a[j] = s;
          top = Math.max(top, s);
        }
        for (let j = 0; j < T; j++) total += a[j] = Math.exp(a[j] - top);
        z.fill(0);
        for (let j = 0; j < T; j++) { // z = sum over j of a_j y_j
          for (let e = 0; e < D; e++) z[e] += (a[j] / total) * y[y0 + j * D + e];
        }
        for (let c = 0; c < d; c++) { // W_v z: this head's output
          let s = 0;
          for (let e = 0; e < D; e++) s += W[(2 * D + head * d + c) * D + e] * z[e];
          attended[b * D + head * d + c] = s;
        }
      }
    }
    const cls = classToken(x, B, T, D); // (B, D)
    add(cls, linear(block.attn.proj, attended, B, "proj")); // x + attn(norm1(x)), class token
    addMlp(block, cls, B);
    return cls;
  }

  // --- the notebook's questions (vitexplain/interpret.py) -----------------------------------

  /** vx.attention_rollout for one picture: per block, heads averaged + identity, rows
   * renormalised; then R = A_L ... A_1. maps: per block (h, T, T). Returns R (T, T) as rows. */
  function attentionRollout(maps, T, h) {
    let R = Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => +(i === j)));
    for (const weights of maps) {
      const A = [];
      for (let i = 0; i < T; i++) {
        const row = [];
        for (let j = 0; j < T; j++) {
          let mean = 0;
          for (let head = 0; head < h; head++) mean += weights[(head * T + i) * T + j];
          row.push(mean / h + (i === j ? 1 : 0)); // heads averaged, + residual
        }
        const total = row.reduce((s, v) => s + v, 0);
        A.push(row.map((v) => v / total)); // rows sum to 1 again
      }
      R = A.map((row) => R[0].map((_, j) => row.reduce((s, a, k) => s + a * R[k][j], 0))); // A @ R
    }
    return R;
  }

  /** vx.logit_lens: the final norm and head read on the class token after each block.
   * classTokens: per block (B, D). Returns (B, depth, K). */
  function logitLens(model, classTokens, B) {
    const perBlock = classTokens.map((cls) =>
      headLogits(model, cls, B).map(softmax),
    );
    return Array.from({ length: B }, (_, b) => perBlock.map((block) => block[b]));
  }

  /** The patches of a picture (64 pixels) that are not all 0, (rows * cols) indices in
   * row-major order: the patches whose hiding changes the picture. */
  function inkedPatches(model, image) {
    const P = model.patchSize, g = model.gridSize, W = g * P, value = 0;
    const inked = [];
    for (let r = 0; r < g; r++) {
      for (let c = 0; c < g; c++) {
        let changed = false;
        for (let i = 0; i < P; i++) {
          for (let j = 0; j < P; j++) changed ||= image[(r * P + i) * W + c * P + j] !== value;
        }
        if (changed) inked.push(r * g + c);
      }
    }
    return inked;
  }

  /** The occlusion map (rows * cols,) from the logits of the occluded copies: per patch in
   * `patches`, probs[target] minus the target's probability with that patch hidden; 0 for the
   * patches left out (all 0 already: hiding them changes nothing). */
  function occlusionDrops(model, probs, target, patches, logits) {
    const drop = new Array(model.gridSize * model.gridSize).fill(0);
    patches.forEach((patch, i) => {
      drop[patch] = probs[target] - softmax(logits[i])[target];
    });
    return drop;
  }

  /** vx.occlusion_map for one picture with its default fill value 0: per patch, the drop of
   * the target class's probability when that patch is hidden (set to 0), all copies run as one
   * batch (occludedLogits). A patch already all 0 is left out of the batch: hiding it changes
   * nothing, and its drop is 0. Returns (rows * cols,), row-major. */
  function occlusionMap(model, image, probs, target) {
    const patches = inkedPatches(model, image);
    const logits = patches.length ? occludedLogits(model, image, patches) : []; // (copies, K)
    return occlusionDrops(model, probs, target, patches, logits);
  }

  /** All the page shows of one picture (64 pixels in [0, 1], row-major) but the occlusion map:
   * the picture's own forward pass (kept for the backward pass: forwardKept) and what is read
   * from it; `why`: the class whose gradient-weighted rollout to compute, or null for the
   * predicted one. */
  function analysePicture(model, image, why) {
    const T = model.numTokens + 1, h = model.numHeads;
    const run = forwardKept(model, image);
    const probs = softmax(run.logits);
    const predicted = probs.indexOf(Math.max(...probs)); // argmax: the first of equal maxima
    const target = why === null || why === undefined ? predicted : why;
    return {
      logits: run.logits,
      probs: probs,
      predicted: predicted,
      maps: run.maps, // per block (h, T, T)
      rollout: attentionRollout(run.maps, T, h), // (T, T)
      lens: logitLens(model, run.classTokens, 1)[0], // (depth, K)
      run: run, // for the gradient-weighted rollout of another class
      why: target,
      whyRollout: gradientRollout(model, run, target), // (T, T)
    };
  }

  /** Everything the page shows, for one picture: 64 pixels in [0, 1], row-major. */
  function analyse(model, image, why) {
    const result = analysePicture(model, image, why);
    result.occlusion = occlusionMap(model, image, result.probs, result.predicted); // (N,)
    return result;
  }
