/* Notebook 08's ViT, live in the page: the forward pass of vitexplain's ViT in JavaScript,
 * and the notebook's three questions asked of it (attention and rollout, logit lens, occlusion).
 *
 * Read it beside vitexplain/vit.py, attention.py and interpret.py: the steps and the names are
 * the package's (patch_embed, cls_token, pos_embed, blocks[i].norm1 / attn.qkv / attn.proj /
 * norm2 / mlp.fc1 / mlp.fc2, norm, head), and so are the shapes in the comments: a batch of B
 * pictures of T = N + 1 tokens of length D, stored flat, row-major. The weights are the float32
 * numbers of vitexplain/weights/digits_vit_learned.pt (exported by scripts/export_site_vit.py
 * into the JSON block of this page); the arithmetic is JavaScript's float64, so the results are
 * those of the notebook's `vit64` (the same weights in float64) up to the order of the sums.
 * The layers' matrix products run, where the browser can, in a small WebAssembly kernel written
 * out below in its text format (see "the product, faster"), which gives the same bits as the
 * plain JavaScript product beside it, about three times as fast. The occlusion runs, most of the
 * work, are shared with a Web Worker that runs this same script (see "the worker" below); the
 * results are the same, to the bit, on either thread, with or without the kernel.
 */
(function () {
  "use strict";
  // This script's own text, read while it runs (document.currentScript is null afterwards): the
  // page starts a worker from it (see "the worker" below). In that worker there is no document.
  const SOURCE = typeof document !== "undefined" && document.currentScript
    ? document.currentScript.textContent
    : null;

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
      pos_embed: p["pos_embed"], // (1, N+1, D), learned
      blocks: blocks,
      norm: layerNorm("norm"),
      head: linear("head"),
    };
  }

  // --- the product, faster: the same sums in WebAssembly, two at a time ---------------------

  // matmulT (below) is every layer's product as it reads, and most of the work: two thirds of a
  // recompute, measured. Where the browser runs WebAssembly's 128-bit SIMD (every current one
  // does), nn.Linear's product (and the attention weights' by v) runs instead in KERNEL, written
  // here in WebAssembly's text format and turned into bytes by `assemble` below, in memory (no
  // file, no request):
  //   out[i, j .. j+7] = sum over c of x[i, c] * wT[c, j .. j+7],
  // eight sums side by side, two in each 128-bit register, each started at 0 and added to in the
  // order of c, a multiply then an add (no fused multiply-add): the operations of matmulT on the
  // same numbers in the same order, so the same bits (a test checks it), but two per instruction.
  // It reads the weights transposed, wT (in, out), so that the eight weights of one input c sit
  // side by side; and all it reads and writes lies in one WebAssembly memory, the heap, where
  // the weights and every buffer below are kept.
  const KERNEL = `
    ;; params $x $wT $n $m $k $out: x (n, k), wT (k, m), out (n, m) by byte address; m: 8, 16, ..
    ;; (locals start at 0, and $zero stays 0)
    i32.const 0  local.set $i
    loop                                                  ;; for each row i of x
      i32.const 0  local.set $j
      loop                                                ;; for each 8 columns j .. j+7
        local.get $zero  local.set $s0  local.get $zero  local.set $s1
        local.get $zero  local.set $s2  local.get $zero  local.set $s3
        local.get $x  local.get $i  local.get $k  i32.mul  i32.const 3  i32.shl  i32.add
        local.set $px                                     ;; &x[i, 0] (8 bytes a number)
        local.get $wT  local.get $j  i32.const 3  i32.shl  i32.add  local.set $pw  ;; &wT[0, j]
        i32.const 0  local.set $c
        loop                                              ;; for each c, in order
          local.get $px  f64.load 0  f64x2.splat  local.set $v          ;; (x[i, c], x[i, c])
          local.get $s0  local.get $v  local.get $pw  v128.load 0   f64x2.mul  f64x2.add
          local.set $s0                                   ;; s0 += x[i, c] wT[c, j .. j+1]
          local.get $s1  local.get $v  local.get $pw  v128.load 16  f64x2.mul  f64x2.add
          local.set $s1                                   ;; s1 += x[i, c] wT[c, j+2 .. j+3]
          local.get $s2  local.get $v  local.get $pw  v128.load 32  f64x2.mul  f64x2.add
          local.set $s2
          local.get $s3  local.get $v  local.get $pw  v128.load 48  f64x2.mul  f64x2.add
          local.set $s3
          local.get $px  i32.const 8  i32.add  local.set $px                  ;; &x[i, c+1]
          local.get $pw  local.get $m  i32.const 3  i32.shl  i32.add  local.set $pw  ;; &wT[c+1, j]
          local.get $c  i32.const 1  i32.add  local.tee $c  local.get $k  i32.lt_u  br_if 0
        end
        local.get $out  local.get $i  local.get $m  i32.mul  local.get $j  i32.add  i32.const 3
        i32.shl  i32.add  local.set $po                   ;; &out[i, j]
        local.get $po  local.get $s0  v128.store 0   local.get $po  local.get $s1  v128.store 16
        local.get $po  local.get $s2  v128.store 32  local.get $po  local.get $s3  v128.store 48
        local.get $j  i32.const 8  i32.add  local.tee $j  local.get $m  i32.lt_u  br_if 0
      end
      local.get $i  i32.const 1  i32.add  local.tee $i  local.get $n  i32.lt_u  br_if 0
    end`;

  /** The bytes of a WebAssembly module that imports a memory (js.heap) and exports one function,
   * kernel, of i32 parameters `params` and locals `i32s` and `v128s`, its body `text`: the
   * instructions of OPCODES, each followed by its immediate where it takes one (a local's name,
   * a label depth, an offset or a constant; all below 64, where LEB128 is one byte as is). */
  function assemble(text, params, i32s, v128s) {
    const OPCODES = {
      loop: [0x03, 0x40], end: [0x0b], br_if: [0x0d], // 0x40: a loop that leaves no value
      "local.get": [0x20], "local.set": [0x21], "local.tee": [0x22],
      "i32.const": [0x41], "i32.add": [0x6a], "i32.mul": [0x6c], "i32.shl": [0x74],
      "i32.lt_u": [0x49],
      "f64.load": [0x2b, 3], // alignment 2^3 bytes, then the offset
      "v128.load": [0xfd, 0, 4], "v128.store": [0xfd, 11, 4], // 0xfd: SIMD; alignment 2^4
      "f64x2.splat": [0xfd, 20], "f64x2.add": [0xfd, 240, 1], "f64x2.mul": [0xfd, 242, 1],
    };
    const names = params.concat(i32s, v128s);
    const code = text.replace(/;;.*$/gm, "").split(/\s+/).filter(Boolean).flatMap((word) => {
      const byte = word[0] === "$" ? names.indexOf(word) : +word; // an immediate
      if (word in OPCODES) return OPCODES[word];
      if (byte >= 0 && byte < 64) return [byte];
      throw new Error("kernel: cannot assemble " + word);
    });
    const leb = (v) => (v < 128 ? [v] : [(v & 127) | 128, ...leb(v >>> 7)]); // unsigned LEB128
    const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
    const name = (s) => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];
    const body = [2, i32s.length, 0x7f, v128s.length, 0x7b, ...code, OPCODES.end[0]]; // 0x7f i32
    return new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, // "\0asm", version 1
      ...section(1, [1, 0x60, params.length, ...params.map(() => 0x7f), 0]), // its type
      ...section(2, [1, ...name("js"), ...name("heap"), 2, 0, 0]), // imports a memory
      ...section(3, [1, 0]), // function 0, of type 0
      ...section(7, [1, ...name("kernel"), 0, 0]), // exported
      ...section(10, [1, ...leb(body.length), ...body]), // its code
    ]);
  }

  // The heap: 256 pages of 64 KiB, 16 MiB, for the weights (1 MiB) and the buffers (3 MiB for
  // 16 occlusion runs, each grown by doubling, so at most twice that with the ones outgrown);
  // past its end, arrays are plain ones and matmulT does their products. `fast` is null where
  // the browser has no WebAssembly or no SIMD: matmulT then does every product.
  const fast = (() => {
    try {
      const memory = new WebAssembly.Memory({ initial: 256 });
      const bytes = assemble(KERNEL, ["$x", "$wT", "$n", "$m", "$k", "$out"],
        ["$i", "$j", "$c", "$px", "$pw", "$po"], ["$zero", "$v", "$s0", "$s1", "$s2", "$s3"]);
      const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes),
        { js: { heap: memory } });
      return { heap: memory.buffer, kernel: instance.exports.kernel, used: 0, spilled: 0 };
    } catch (error) {
      return null;
    }
  })();

  /** A Float64Array of `size` numbers in the heap (64-byte aligned), or, where there is no heap
   * or it is full, a plain one (counted in fast.spilled). */
  function allocate(size) {
    if (!fast) return new Float64Array(size);
    if (fast.used + size * 8 > fast.heap.byteLength) {
      fast.spilled++;
      return new Float64Array(size);
    }
    const array = new Float64Array(fast.heap, fast.used, size);
    fast.used += Math.ceil(size / 8) * 64;
    return array;
  }
  const inHeap = (...arrays) => fast !== null && arrays.every((a) => a.buffer === fast.heap);

  /** A weight w (out, in) transposed, wT (in, out), in the heap: what the kernel reads. Null
   * where the kernel cannot take it (no heap; out not a multiple of 8, like the head's 10). */
  function transposed(w, out, inputs) {
    if (!fast || out % 8 !== 0) return null;
    const wT = allocate(out * inputs);
    for (let o = 0; o < out; o++) {
      for (let c = 0; c < inputs; c++) wT[c * out + o] = w[o * inputs + c];
    }
    return inHeap(wT) ? wT : null;
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

  /** out (n, m) = x (n, k) times w (m, k) transposed: by the kernel where it can take them (wT,
   * w transposed (k, m), given; m a multiple of 8; none empty; all in the heap), else by
   * matmulT. The same bits either way. */
  function product(x, w, wT, n, m, k, out) {
    if (wT && m % 8 === 0 && Math.min(n, m, k) > 0 && inHeap(x, wT, out)) {
      fast.kernel(x.byteOffset, wT.byteOffset, n, m, k, out.byteOffset);
    } else {
      matmulT(x, w, n, m, k, out);
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
   * the picture's own forward pass and what is read from it. */
  function analysePicture(model, image) {
    const T = model.numTokens + 1, h = model.numHeads;
    const run = forward(model, image, 1);
    const probs = softmax(run.logits[0]);
    const predicted = probs.indexOf(Math.max(...probs)); // argmax: the first of equal maxima
    return {
      logits: run.logits[0],
      probs: probs,
      predicted: predicted,
      maps: run.maps, // per block (h, T, T)
      rollout: attentionRollout(run.maps, T, h), // (T, T)
      lens: logitLens(model, run.classTokens, 1)[0], // (depth, K)
    };
  }

  /** Everything the page shows, for one picture: 64 pixels in [0, 1], row-major. */
  function analyse(model, image) {
    const result = analysePicture(model, image);
    result.occlusion = occlusionMap(model, image, result.probs, result.predicted); // (N,)
    return result;
  }

  // --- the worker: part of the occlusion runs on a second core ------------------------------

  // The page runs this same script a second time as a Web Worker, from its own text in a blob:
  // URL (memory, not a request; no file, no fetch). The worker is sent the weights once, then
  // per update a picture and the patches to hide, and answers their occluded logits: the same
  // functions on the same numbers, so the same results as on the page's thread.
  if (typeof document === "undefined") {
    let workerModel = null;
    self.onmessage = (event) => {
      const job = event.data;
      if (job.weights) {
        workerModel = loadModel(job.weights);
        // warm up the JIT, as the page's thread is by its first updates: a share of runs
        // measured on cold code would be small, and stay small
        const image = Float64Array.from({ length: 64 }, (_, i) => (i * 7) % 5 / 4);
        for (let i = 0; i < 20; i++) occludedLogits(workerModel, image, [1, 2, 5, 6, 9, 10]);
        self.postMessage({ ready: true, kernel: fast !== null });
      } else {
        const start = performance.now(); // since the worker's own time origin
        const logits = occludedLogits(workerModel, job.image, job.patches);
        self.postMessage({ serial: job.serial, logits: logits, ms: performance.now() - start,
          started: performance.timeOrigin + start }); // on the clock shared with the page
      }
    };
    return;
  }

  // --- the page -----------------------------------------------------------------------------

  const dataNode = document.getElementById("vx-vit-data");
  if (!dataNode) return;
  const data = JSON.parse(dataNode.textContent);
  const model = loadModel(data);
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
  };
  const root = document.getElementById("vx-vit");
  if (!root) return;
  const numPictures = data.test_labels.length;
  const slider = root.querySelector('[data-vx="slider"]');
  const $ = (name) => root.querySelector('[data-vx="' + name + '"]');
  const state = { levels: new Array(SIDE * SIDE).fill(0), picture: 0, drawn: false, cursor: 0 };
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
    $("picture-text").textContent = state.drawn
      ? "your drawing (from test picture " + state.picture + ")"
      : "test picture " + state.picture + " of 0–" + (numPictures - 1) + ", label " + label;
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
    $("status").textContent = picture + ": the model reads " + r.predicted +
      " with probability " + r.probs[r.predicted].toFixed(2) + ".";
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
    if (r.occlusion) renderOcclusion();
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

  // The occlusion runs (one forward pass per inked patch, the bulk of the work) are shared with
  // the worker: it takes the first ones while this thread does the picture's own pass, the
  // drawing and the rest. How many: so that both threads end together, from the times measured
  // in the updates before, which change with the load of the machine (a worker slowed down by
  // other work gets less): ms per run on each thread (page: while the worker works too; alone:
  // while it does not), ms of this thread's own part (the picture's pass), of the drawing, and
  // the worker's delay (from the post of a job to the start of its work); first guesses below.
  // And whether at all: two threads can be slower than one where the machine has no core to
  // spare (its other work keeps both busy, and the two threads then share one), so `gain`, the
  // time of the last updates with the worker over the time this thread alone would have taken
  // (own + alone n + render), decides; it is let down a little after each
  // update without the worker, so that the worker is tried again. Without a worker (none in this
  // browser, it failed, or it is still busy with an update since replaced) this thread does all.
  const cost = { worker: 1, page: 1, alone: 1, own: 3, render: 3, delay: 1, gain: 0.6 };
  const measured = (key, value) => { cost[key] = 0.5 * cost[key] + 0.5 * value; };
  /** Of n runs, the worker's: m with own + page (n - m) = delay + worker m, rounded, in 0..n. */
  const workerShare = (n) => Math.max(0, Math.min(n,
    Math.round((cost.own + cost.page * n - cost.delay) / (cost.page + cost.worker))));
  let worker = null, serial = 0, pending = null, busy = false;
  let ready = () => {}; // resolves vxVit.workerReady: true once the worker is warm, else false
  let workerKernel = false; // whether the worker runs its products in the kernel
  const workerReady = new Promise((resolve) => { ready = resolve; });
  /** The update now on screen is complete: every result is written. A promise per update;
   * one replaced before its end resolves to false. */
  let written = Promise.resolve(true), finish = () => {};

  function startWorker() {
    if (!SOURCE || typeof Worker !== "function") return null;
    try {
      const url = URL.createObjectURL(new Blob([SOURCE], { type: "text/javascript" }));
      const w = new Worker(url);
      w.onmessage = (event) => {
        busy = false; // ready, or done
        const reply = event.data;
        if (reply.ready) {
          workerKernel = reply.kernel;
          ready(true);
        }
        if (pending && reply.serial === pending.serial) {
          measured("worker", reply.ms / pending.far.length);
          measured("delay", reply.started - pending.posted); // from the post to its start
          complete(pending, reply.logits, true);
        }
      };
      w.onerror = w.onmessageerror = (event) => { // from now on, everything on this thread
        if (event.preventDefault) event.preventDefault();
        worker = null;
        busy = false;
        ready(false);
        if (pending) complete(pending, occludedLogits(model, pending.image, pending.far), false);
      };
      w.postMessage({ weights: { config: data.config, params: data.params } }); // once
      busy = true; // until it says it is ready
      return w;
    } catch (error) {
      return null; // e.g. a page whose policy forbids blob: workers
    }
  }

  /** The occlusion map of update `job` from the worker's logits (its patches `far`) and this
   * thread's (`near`), written into the page. */
  function complete(job, farLogits, fromWorker) {
    pending = null;
    if (job.far.length) { // an update with the worker: its time over this thread's alone
      const n = job.far.length + job.near.length;
      measured("gain",
        (performance.now() - job.start) / (cost.own + cost.alone * n + cost.render));
    }
    result.occlusion = occlusionDrops(model, result.probs, result.predicted,
      job.far.concat(job.near), farLogits.concat(job.nearLogits));
    result.workerRuns = fromWorker ? job.far.length : 0; // of the occlusion runs, the worker's
    const start = performance.now();
    render(); // everything at once (see update)
    measured("render", performance.now() - start);
    finish(true);
  }

  // When this thread has done its part and the worker's answer is not in yet (a worker slowed
  // down by other work on the machine), this thread takes the worker's runs back, one at a time
  // from the last, letting the answer in between (a task of its own each, by a MessageChannel,
  // which has no delay, unlike setTimeout): whichever finishes them first gives the map.
  const turn = new MessageChannel();
  turn.port1.onmessage = (event) => {
    const job = pending;
    if (!job || job.serial !== event.data) return; // done, or replaced by a newer update
    const b = job.far.length - 1 - job.taken.length; // the last of the worker's runs not taken
    job.taken.unshift(occludedLogits(model, job.image, [job.far[b]])[0]);
    if (b > 0) turn.port2.postMessage(job.serial);
    else complete(job, job.taken, false);
  };

  function update() {
    finish(false); // the update before, if still waiting for the worker, is replaced
    written = new Promise((resolve) => { finish = resolve; });
    const image = pixels(state.levels), patches = inkedPatches(model, image);
    const share = worker && !busy && cost.gain < 1 ? workerShare(patches.length) : 0;
    if (!share) { // a long delay or a loss once is forgotten: the worker is tried again
      cost.delay *= 0.7;
      cost.gain *= 0.95;
    }
    const job = { serial: ++serial, image: image, far: patches.slice(0, share),
      near: patches.slice(share), nearLogits: [], taken: [], start: performance.now() };
    if (job.far.length) { // first, so that both threads work at once
      job.posted = performance.timeOrigin + performance.now();
      worker.postMessage({ serial: job.serial, image: image, patches: job.far });
      busy = true;
    }
    pending = job;
    // Nothing is written into the page before the occlusion map is in: a change would make the
    // browser lay out and paint this long page between this task and the worker's answer,
    // which would then wait for it.
    const start = performance.now();
    result = analysePicture(model, image);
    const own = performance.now();
    measured("own", own - start);
    if (job.near.length) {
      job.nearLogits = occludedLogits(model, image, job.near);
      measured(share ? "page" : "alone", (performance.now() - own) / job.near.length);
    }
    if (!job.far.length) complete(job, [], false);
    else turn.port2.postMessage(job.serial); // take the worker's runs back if it is late
    return written;
  }

  function showPicture(k) {
    slider.value = String(k);
    state.picture = k;
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
})();
