/* Notebook 08's ViT, live in the page (3 of 7): the backward pass, and with it "why this class?",
 * gradient-weighted attention rollout (Chefer, Gur and Wolf, "Generic Attention-model
 * Explainability", 2021) for any class c the reader picks:
 *
 *   R = I (T x T); for each block b in order: Abar_b = mean over heads of
 *   clamp(dy_c / dA_b * A_b, min=0), R = R + Abar_b @ R; the map is R[0, 1:], one value a patch,
 *
 * where A_b are block b's attention weights (softmax(q k^T * scale), h of (T, T)) and y_c the
 * logit of class c. The gradients dy_c / dA_b come from the backward pass written out below,
 * step by step the reverse of ViT.forward (vit.js), on one picture: what torch's autograd
 * computes (an e2e test compares the maps with it on every test picture and class).
 *
 * Needs from vit.js: embed, layerNorm, linear, attend, gelu, add, headLogits, classToken, erf
 * and buffer; from vit-fast.js: product and allocate.
 */

  // --- the forward pass, keeping what the backward pass reads --------------------------------

  /** ViT.forward on one picture (64 pixels) -> its logits (K,), each block's attention weights
   * (h, T, T) and class token after it (D,), and `kept`: per block its input x, q k v (T, 3D),
   * attention weights, its middle x + attn(norm1(x)) (T, D) and the MLP's fc1 output before
   * GELU (T, H), all copied out of vit.js's reused buffers. */
  function forwardKept(model, image) {
    const T = model.numTokens + 1, D = model.embedDim, h = model.numHeads;
    const x = embed(model, image, 1); // (T, D)
    const kept = [], maps = [], classTokens = [];
    for (const block of model.blocks) {
      const input = x.slice();
      const qkv = linear(block.attn.qkv, layerNorm(block.norm1, x, T, "norm"), T, "qkv").slice();
      const weights = new Float64Array(h * T * T);
      add(x, linear(block.attn.proj, attend(qkv, 1, T, h, weights), T, "proj"));
      const middle = x.slice();
      const hidden = linear(block.mlp.fc1, layerNorm(block.norm2, x, T, "norm"), T, "hidden");
      const beforeGelu = hidden.slice(); // (T, H)
      add(x, linear(block.mlp.fc2, gelu(hidden), T, "mlp"));
      kept.push({ input, qkv, weights, middle, beforeGelu });
      maps.push(weights);
      classTokens.push(classToken(x, 1, T, D));
    }
    const logits = headLogits(model, classTokens[classTokens.length - 1], 1)[0];
    return { logits, maps, classTokens, kept };
  }

  // --- the layers, backwards: from the gradient of an output to that of the input -----------

  /** nn.Linear backwards on n tokens: dy (n, out) -> dx (n, in) = dy W, W (out, in), into
   * buffer `name`: the product of dy by W^T (in, out) transposed, by `product` (vit-fast.js),
   * whose kernel reads W itself as the transposed weight; both kept, in the heap, on first use. */
  function linearBack(layer, dy, n, name) {
    if (!layer.back) {
      const W = allocate(layer.out * layer.in), WT = new Float64Array(layer.in * layer.out);
      W.set(layer.weight);
      for (let o = 0; o < layer.out; o++) {
        for (let i = 0; i < layer.in; i++) WT[i * layer.out + o] = layer.weight[o * layer.in + i];
      }
      layer.back = { W: W, WT: WT };
    }
    return product(dy, layer.back.WT, layer.back.W, n, layer.in, layer.out,
      buffer(name, n * layer.in));
  }

  /** nn.LayerNorm backwards on n tokens, from its input x (n, D) and dy (n, D) -> dx (n, D):
   * with xhat = (x - mean) / sigma and g = dy * weight, dx = (g - mean(g) - xhat mean(g xhat))
   * / sigma, the means over the D features of each token; into buffer `name`. */
  function layerNormBack(ln, x, dy, n, name) {
    const d = ln.weight.length, dx = buffer(name, n * d), xhat = new Float64Array(d);
    const g = new Float64Array(d);
    for (let t = 0; t < n; t++) {
      let mean = 0, variance = 0;
      for (let i = 0; i < d; i++) mean += x[t * d + i];
      mean /= d;
      for (let i = 0; i < d; i++) variance += (x[t * d + i] - mean) ** 2;
      const scale = 1 / Math.sqrt(variance / d + 1e-5); // 1 / sigma, as in layerNorm
      let meanG = 0, meanGX = 0;
      for (let i = 0; i < d; i++) {
        xhat[i] = (x[t * d + i] - mean) * scale;
        g[i] = dy[t * d + i] * ln.weight[i];
        meanG += g[i] / d;
        meanGX += (g[i] * xhat[i]) / d;
      }
      for (let i = 0; i < d; i++) dx[t * d + i] = (g[i] - meanG - xhat[i] * meanGX) * scale;
    }
    return dx;
  }

  /** GELU backwards, in place on dy: times GELU'(u) = Phi(u) + u phi(u) at its input u. */
  function geluBack(u, dy) {
    for (let i = 0; i < dy.length; i++) {
      const z = u[i];
      const slope = 0.5 * (1 + erf(z / Math.SQRT2)) + (z * Math.exp(-0.5 * z * z)) /
        Math.sqrt(2 * Math.PI);
      dy[i] *= slope;
    }
    return dy;
  }

  /** The attention of one block backwards (no qkv bias), from the gradient of the heads'
   * outputs dheads (T, h d) -> the gradient of q k v (T, 3D) and of the attention weights
   * (h, T, T). Per head, out = A v and A = softmax(S), S = q k^T * scale:
   *   dA = dout v^T, dv = A^T dout, dS = A * (dA - rowsum(dA * A)),
   *   dq = dS k * scale, dk = dS^T q * scale. */
  function attendBack(kept, dheads, T, h) {
    const D = dheads.length / T, d = D / h, scale = d ** -0.5, qkv = kept.qkv, A = kept.weights;
    const dqkv = buffer("back qkv", T * 3 * D), dA = new Float64Array(h * T * T); // "n (qkv h d)"
    const S = new Float64Array(T * T), row = 3 * D; // S: dS of one head; row: a token in qkv
    for (let head = 0; head < h; head++) {
      const a = head * T * T, q = head * d, k = D + head * d, v = 2 * D + head * d; // offsets
      for (let i = 0; i < T; i++) {
        let dot = 0; // sum over l of dA[i, l] A[i, l]
        for (let j = 0; j < T; j++) {
          let s = 0;
          for (let c = 0; c < d; c++) s += dheads[i * D + q + c] * qkv[j * row + v + c];
          dA[a + i * T + j] = s;
          dot += s * A[a + i * T + j];
        }
        for (let j = 0; j < T; j++) S[i * T + j] = A[a + i * T + j] * (dA[a + i * T + j] - dot);
      }
      for (let j = 0; j < T; j++) {
        for (let c = 0; c < d; c++) {
          let dv = 0, dk = 0;
          for (let i = 0; i < T; i++) {
            dv += A[a + i * T + j] * dheads[i * D + q + c];
            dk += S[i * T + j] * qkv[i * row + q + c];
          }
          dqkv[j * row + v + c] = dv;
          dqkv[j * row + k + c] = dk * scale;
        }
      }
      for (let i = 0; i < T; i++) {
        for (let c = 0; c < d; c++) {
          let dq = 0;
          for (let j = 0; j < T; j++) dq += S[i * T + j] * qkv[j * row + k + c];
          dqkv[i * row + q + c] = dq * scale;
        }
      }
    }
    return { dqkv, dA };
  }

  /** The gradient of logit `target` with respect to each block's attention weights: per block
   * (h, T, T), from the forward pass `run` (forwardKept) of one picture. */
  function attentionGradients(model, run, target) {
    const T = model.numTokens + 1, D = model.embedDim, h = model.numHeads;
    const blocks = model.blocks, last = run.kept.length - 1;
    // logit = head(norm(x[0])): d logit / d norm(x[0]) is the head's row `target`
    const dNorm = model.head.weight.subarray(target * D, (target + 1) * D);
    const dx = buffer("back x", T * D).fill(0); // the gradient of the last block's output
    dx.set(layerNormBack(model.norm, run.classTokens[last], dNorm, 1, "back norm")); // token 0
    const gradients = [];
    for (let b = last; b >= 0; b--) {
      const block = blocks[b], kept = run.kept[b];
      // x = middle + fc2(gelu(fc1(norm2(middle))))
      const dHidden = geluBack(kept.beforeGelu, linearBack(block.mlp.fc2, dx, T, "back hidden"));
      const dNorm2 = linearBack(block.mlp.fc1, dHidden, T, "back norm");
      const dMiddle = layerNormBack(block.norm2, kept.middle, dNorm2, T, "back middle");
      add(dMiddle, dx);
      // middle = input + proj(attend(qkv(norm1(input))))
      const dHeads = linearBack(block.attn.proj, dMiddle, T, "back heads");
      const { dqkv, dA } = attendBack(kept, dHeads, T, h);
      gradients[b] = dA;
      const dNorm1 = linearBack(block.attn.qkv, dqkv, T, "back norm");
      dx.set(layerNormBack(block.norm1, kept.input, dNorm1, T, "back input"));
      add(dx, dMiddle);
    }
    return gradients;
  }

  /** Gradient-weighted rollout of class `target` (Chefer et al., 2021) from the forward pass
   * `run` of one picture: R (T, T) as rows; its class token's row over the patches,
   * R[0][1:], is the map. */
  function gradientRollout(model, run, target) {
    const T = model.numTokens + 1, h = model.numHeads;
    const gradients = attentionGradients(model, run, target);
    let R = new Float64Array(T * T);
    for (let i = 0; i < T; i++) R[i * T + i] = 1; // I
    const mean = new Float64Array(T * T);
    run.maps.forEach((A, b) => {
      const G = gradients[b];
      mean.fill(0); // Abar = mean over heads of clamp(G * A, min=0)
      for (let head = 0; head < h; head++) {
        const at = head * T * T;
        for (let i = 0; i < T * T; i++) mean[i] += Math.max(0, G[at + i] * A[at + i]);
      }
      for (let i = 0; i < T * T; i++) mean[i] /= h;
      const next = R.slice(); // R + Abar @ R
      for (let i = 0; i < T; i++) {
        for (let k = 0; k < T; k++) {
          const a = mean[i * T + k];
          if (a !== 0) for (let j = 0; j < T; j++) next[i * T + j] += a * R[k * T + j];
        }
      }
      R = next;
    });
    return Array.from({ length: T }, (_, i) => Array.from(R.subarray(i * T, (i + 1) * T)));
  }
