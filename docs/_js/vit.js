/* Notebook 08's ViT, live in the page (2 of 7): the model. The forward pass of vitexplain's ViT
 * in plain JavaScript: the weights, the layers, ViT.forward.
 *
 * Read it beside vitexplain/vit.py and attention.py: the steps and the names are the package's
 * (patch_embed, cls_token, pos_embed, blocks[i].norm1 / attn.qkv / attn.proj / norm2 /
 * mlp.fc1 / mlp.fc2, norm, head), and so are the shapes in the comments: a batch of B pictures
 * of T = N + 1 tokens of length D, stored flat, row-major. The weights are the float32 numbers
 * of vitexplain/weights/digits_vit_learned.pt (exported by scripts/export_site_vit.py into the
 * JSON block of this page); the arithmetic is JavaScript's float64, so the results are those of
 * the notebook's `vit64` (the same weights in float64) up to the order of the sums.
 *
 * docs/_ext/vx_vit.py puts the seven files vit*.js into the page as one script, in one
 * function's scope (vit-fast.js, this file, vit-backward.js, vit-questions.js, vit-worker.js,
 * vit-twins.js, vit-page.js), so each sees the others' names. From vit-fast.js this file needs
 * `product` (a layer's product: the WebAssembly kernel where the browser has it, else matmulT
 * below, to the same bits), `transposed` and `allocate` (the weights and buffers kept where the
 * kernel reads them). The twin without position (digits_vit_none.pt) is loaded by the same
 * loadModel: it has no pos_embed, and embed adds none.
 */

  // --- the weights --------------------------------------------------------------------------

  /** One exported tensor, [shape, base64 of little-endian float32], as a Float64Array. */
  function decode(entry) {
    const bytes = Uint8Array.from(atob(entry[1]), (c) => c.charCodeAt(0));
    const values = new Float32Array(bytes.buffer);
    return Float64Array.from(values);
  }

  /** The model as nested objects named like the package's modules. */
  function loadModel(data) {
    const p = {};
    for (const name in data.params) p[name] = decode(data.params[name]);
    const linear = (name) => ({
      weight: p[name + ".weight"], // (out, in), as nn.Linear stores it
      weightT: transposed(p[name + ".weight"], ...data.params[name + ".weight"][0]), // or null
      bias: p[name + ".bias"] || null, // (out,); qkv has none (qkv_bias=False)
      out: data.params[name + ".weight"][0][0],
      in: data.params[name + ".weight"][0][1],
    });
    const layerNorm = (name) => ({ weight: p[name + ".weight"], bias: p[name + ".bias"] });
    const c = data.config;
    const blocks = [];
    for (let i = 0; i < c.depth; i++) {
      const b = "blocks." + i;
      blocks.push({
        norm1: layerNorm(b + ".norm1"),
        attn: { qkv: linear(b + ".attn.qkv"), proj: linear(b + ".attn.proj") },
        norm2: layerNorm(b + ".norm2"),
        mlp: { fc1: linear(b + ".mlp.fc1"), fc2: linear(b + ".mlp.fc2") },
      });
    }
    const side = c.img_size[0] / c.patch_size;
    return {
      config: c,
      numHeads: c.num_heads,
      embedDim: c.embed_dim,
      patchSize: c.patch_size,
      gridSize: side, // 4: a 4 x 4 grid of patches
      numTokens: side * side, // N = 16 patch tokens
      patch_embed: { proj: linear("patch_embed.proj") }, // Linear(C*P*P, D) on patchified pixels
      cls_token: p["cls_token"], // (1, 1, D)
      pos_embed: p["pos_embed"] || null, // (1, N+1, D), learned; null without (pos_embed="none")
      blocks: blocks,
      norm: layerNorm("norm"),
      head: linear("head"),
    };
  }

  // --- the layers ---------------------------------------------------------------------------

  // Each step writes its output into a buffer of its own, kept from one recompute to the next,
  // so that a recompute allocates no large arrays; a result kept for later is copied out.
  const buffers = new Map();
  function buffer(name, size) {
    if (!buffers.has(name) || buffers.get(name).length < size) {
      buffers.set(name, allocate(2 ** Math.ceil(Math.log2(size)))); // grown by doubling
    }
    return buffers.get(name).subarray(0, size);
  }

  /** a (n, k) times b (m, k) transposed into out (n, m), out[i, j] = sum over c of
   * a[i, c] b[j, c]: every layer's product. Two rows of a and four of b at a time, so that each
   * number read serves several products (the same sums, in the same order, faster); a row past
   * the end of a or b stands in for the last one, and its sums are not stored. */
  function matmulT(a, b, n, m, k, out) {
    for (let j = 0; j < m; j += 4) {
      const b0 = j * k, b1 = Math.min(j + 1, m - 1) * k; // rows j .. j + 3 of b
      const b2 = Math.min(j + 2, m - 1) * k, b3 = Math.min(j + 3, m - 1) * k;
      for (let i = 0; i < n; i += 2) {
        const a0 = i * k, a1 = Math.min(i + 1, n - 1) * k; // rows i and i + 1 of a
        let s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
        for (let c = 0; c < k; c++) {
          const u = a[a0 + c], v = a[a1 + c];
          const p0 = b[b0 + c], p1 = b[b1 + c], p2 = b[b2 + c], p3 = b[b3 + c];
          s00 += u * p0; s01 += u * p1; s02 += u * p2; s03 += u * p3;
          s10 += v * p0; s11 += v * p1; s12 += v * p2; s13 += v * p3;
        }
        const row0 = i * m + j, row1 = row0 + m, last = Math.min(4, m - j);
        out[row0] = s00;
        if (last > 1) out[row0 + 1] = s01;
        if (last > 2) out[row0 + 2] = s02;
        if (last > 3) out[row0 + 3] = s03;
        if (i + 1 < n) {
          out[row1] = s10;
          if (last > 1) out[row1 + 1] = s11;
          if (last > 2) out[row1 + 2] = s12;
          if (last > 3) out[row1 + 3] = s13;
        }
      }
    }
    return out;
  }

  /** nn.Linear on n tokens: x (n, in) -> (n, out), y = x W^T + b, into buffer `name`. */
  function linear(layer, x, n, name) {
    const y = product(x, layer.weight, layer.weightT, n, layer.out, layer.in,
      buffer(name, n * layer.out));
    if (layer.bias) {
      for (let t = 0; t < n; t++) {
        for (let o = 0; o < layer.out; o++) y[t * layer.out + o] += layer.bias[o];
      }
    }
    return y;
  }

  /** nn.LayerNorm over the last axis (eps 1e-5, biased variance): x (n, D) -> (n, D). */
  function layerNorm(ln, x, n, name) {
    const d = ln.weight.length, y = buffer(name, n * d);
    for (let t = 0; t < n; t++) {
      let mean = 0, variance = 0;
      for (let i = 0; i < d; i++) mean += x[t * d + i];
      mean /= d;
      for (let i = 0; i < d; i++) variance += (x[t * d + i] - mean) ** 2;
      const scale = 1 / Math.sqrt(variance / d + 1e-5);
      for (let i = 0; i < d; i++) {
        y[t * d + i] = (x[t * d + i] - mean) * scale * ln.weight[i] + ln.bias[i];
      }
    }
    return y;
  }

  /** x += y: a residual connection. */
  function add(x, y) {
    for (let i = 0; i < x.length; i++) x[i] += y[i];
  }

  /** The error function, exactly (to float64 precision) but slowly: a power series for
   * |z| < 2.5, else the continued fraction of erfc. It fills the table of `erf` below. */
  function erfSeries(z) {
    const a = Math.abs(z);
    if (a < 2.5) {
      let term = z, sum = z; // sum over n of (-1)^n z^(2n+1) / (n! (2n+1))
      for (let n = 1; n < 80 && Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
        term *= (-z * z) / n;
        sum += term / (2 * n + 1);
      }
      return (2 / Math.sqrt(Math.PI)) * sum;
    }
    let f = a; // erfc(a) = exp(-a^2) / sqrt(pi) / (a + (1/2) / (a + 1 / (a + (3/2) / (a + ...))))
    for (let k = 80; k >= 1; k--) f = a + k / 2 / f;
    const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
    return z > 0 ? 1 - erfc : erfc - 1;
  }

  // erf and its slope 2/sqrt(pi) exp(-z^2) at z = k / 256 for z in [0, 6]; beyond 6,
  // erf(z) = 1 to float64 precision.
  const STEP = 256, TOP = 6;
  const ERF = Float64Array.from({ length: TOP * STEP + 1 }, (_, k) => erfSeries(k / STEP));
  const SLOPE = ERF.map((_, k) => (Math.exp(-((k / STEP) ** 2)) * 2) / Math.sqrt(Math.PI));

  /** The error function (JavaScript has none), fast: a Taylor step t from the nearest table
   * point z0, with the derivatives erf' = s, erf'' = -2 z0 s, erf''' = (4 z0^2 - 2) s and
   * erf'''' = -(8 z0^3 - 12 z0) s, where s = SLOPE[k]. As |t| <= 1/512, the first term left
   * out (t^5 / 5! times the fifth derivative) is below 1e-14. */
  function erf(z) {
    const a = Math.abs(z);
    if (a >= TOP) return z < 0 ? -1 : 1;
    const k = (a * STEP + 0.5) | 0, z0 = k / STEP, t = a - z0; // the nearest point, and the step
    // t - z0 t^2 + (4 z0^2 - 2) t^3 / 6 - (8 z0^3 - 12 z0) t^4 / 24, in Horner's form
    const taylor =
      t * (1 + t * (-z0 + t * ((4 * z0 * z0 - 2) / 6 - (t * (8 * z0 * z0 - 12) * z0) / 24)));
    const value = ERF[k] + SLOPE[k] * taylor;
    return z < 0 ? -value : value;
  }

  /** nn.GELU() (the exact one): x * Phi(x), in place. */
  function gelu(x) {
    for (let i = 0; i < x.length; i++) x[i] = 0.5 * x[i] * (1 + erf(x[i] / Math.SQRT2));
    return x;
  }

  function softmax(logits) {
    const top = Math.max(...logits);
    const e = logits.map((v) => Math.exp(v - top));
    const total = e.reduce((s, v) => s + v, 0);
    return e.map((v) => v / total);
  }

  /** softmax(q k^T * scale) v per head, from qkv (B, T, 3 h d) -> (B, T, h d): the heads' outputs
   * side by side, "b h n d -> b n (h d)". weights: where to keep the attention weights
   * (B, h, T, T), which vx.attention_maps reads, or null. */
  function attend(qkv, B, T, h, weights) {
    const D = qkv.length / (B * T * 3), d = D / h, scale = d ** -0.5; // head_dim ** -0.5
    const out = buffer("attend", B * T * D);
    const q = buffer("q", T * d), k = buffer("k", T * d), v = buffer("v", T * d);
    const vT = buffer("vT", d * T), w = buffer("w", T * T), o = buffer("o", T * d);
    for (let b = 0; b < B; b++) {
      for (let head = 0; head < h; head++) {
        // "b n (qkv h d) -> qkv b h n d": this picture's and head's q, k, v (T, d), and v as (d, T)
        for (let i = 0; i < T; i++) {
          for (let c = 0; c < d; c++) {
            const at = (b * T + i) * 3 * D + head * d + c;
            q[i * d + c] = qkv[at];
            k[i * d + c] = qkv[at + D];
            v[i * d + c] = vT[c * T + i] = qkv[at + 2 * D];
          }
        }
        matmulT(q, k, T, T, d, w); // (T, T): q k^T
        for (let i = 0; i < T; i++) { // softmax(q k^T * scale, dim=-1), row by row
          let top = -Infinity, total = 0;
          for (let j = 0; j < T; j++) top = Math.max(top, w[i * T + j] * scale);
          for (let j = 0; j < T; j++) total += w[i * T + j] = Math.exp(w[i * T + j] * scale - top);
          for (let j = 0; j < T; j++) w[i * T + j] /= total;
        }
        if (weights) weights.set(w, (b * h + head) * T * T);
        product(w, vT, v, T, d, T, o); // (T, d): weights @ v
        for (let i = 0; i < T; i++) {
          for (let c = 0; c < d; c++) out[(b * T + i) * D + head * d + c] = o[i * d + c];
        }
      }
    }
    return out;
  }

  /** x + mlp(norm2(x)) on n tokens x (n, D), in place. */
  function addMlp(block, x, n) {
    const y = layerNorm(block.norm2, x, n, "norm");
    add(x, linear(block.mlp.fc2, gelu(linear(block.mlp.fc1, y, n, "hidden")), n, "mlp"));
  }

  /** Block.forward on x (B, T, D), in place: x + attn(norm1(x)), then x + mlp(norm2(x)).
   * qkv: attn.qkv(norm1(x)) (B, T, 3D), or null to compute it here; weights: as for attend. */
  function blockForward(block, x, B, T, h, qkv, weights) {
    const n = B * T;
    qkv = qkv || linear(block.attn.qkv, layerNorm(block.norm1, x, n, "norm"), n, "qkv");
    add(x, linear(block.attn.proj, attend(qkv, B, T, h, weights), n, "proj"));
    addMlp(block, x, n);
  }

  /** patchify: images (B, 8, 8) -> tokens (B, N, C*P*P),
   * "b c (h p1) (w p2) -> b (h w) (c p1 p2)". */
  function patchify(images, B, model) {
    const P = model.patchSize, g = model.gridSize, W = g * P, N = g * g;
    const tokens = new Float64Array(B * N * P * P);
    for (let b = 0; b < B; b++)
      for (let r = 0; r < g; r++)
        for (let c = 0; c < g; c++)
          for (let i = 0; i < P; i++)
            for (let j = 0; j < P; j++)
              tokens[((b * N + r * g + c) * P + i) * P + j] =
                images[b * W * W + (r * P + i) * W + c * P + j];
    return tokens;
  }

  /** The blocks' input: images (B, 8, 8) -> (B, T, D), patch_embed, the class token in front,
   * + pos_embed. */
  function embed(model, images, B) {
    const N = model.numTokens, T = N + 1, D = model.embedDim;
    const patches = linear(model.patch_embed.proj, patchify(images, B, model), B * N, "embed");
    const tokens = new Float64Array(B * T * D); // (B, N+1, D)
    for (let b = 0; b < B; b++) {
      tokens.set(model.cls_token, b * T * D); // torch.cat([cls, x], dim=1)
      tokens.set(patches.subarray(b * N * D, (b + 1) * N * D), b * T * D + D);
      if (!model.pos_embed) continue; // pos_embed="none": no position at all
      for (let i = 0; i < T * D; i++) tokens[b * T * D + i] += model.pos_embed[i]; // + pos_embed
    }
    return tokens;
  }

  /** ViT.forward for a batch of B pictures, images (B, 8, 8) flat, pixels in [0, 1]. Returns
   * the logits (B, K), each block's attention weights (B, h, T, T) with T = N + 1, and the
   * class token after each block (B, D), which vx.logit_lens reads. */
  function forward(model, images, B) {
    const T = model.numTokens + 1, D = model.embedDim, h = model.numHeads;
    const x = embed(model, images, B); // (B, T, D)
    const maps = [], classTokens = [];
    for (const layer of model.blocks) {
      const weights = new Float64Array(B * h * T * T);
      blockForward(layer, x, B, T, h, null, weights);
      maps.push(weights);
      classTokens.push(classToken(x, B, T, D));
    }
    return { logits: headLogits(model, classTokens[classTokens.length - 1], B), maps, classTokens };
  }

  /** The head on the class token after the last block, cls (B, D) -> logits as B rows of K:
   * head(norm(x)[:, 0]). */
  function headLogits(model, cls, B) {
    return rows(linear(model.head, layerNorm(model.norm, cls, B, "norm"), B, "head"), B);
  }

  /** x[:, 0]: (B, T, D) -> (B, D). */
  function classToken(x, B, T, D) {
    const cls = new Float64Array(B * D);
    for (let b = 0; b < B; b++) cls.set(x.subarray(b * T * D, b * T * D + D), b * D);
    return cls;
  }

  /** A flat (B, K) array as B plain arrays of K. */
  function rows(flat, B) {
    const K = flat.length / B;
    return Array.from({ length: B }, (_, b) => Array.from(flat.subarray(b * K, (b + 1) * K)));
  }
