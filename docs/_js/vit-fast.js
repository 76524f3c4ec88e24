/* Notebook 08's ViT, live in the page (1 of 7): the speed. The layers'
 * matrix products in a small WebAssembly SIMD kernel, written out here in its text format and
 * assembled in memory (no file, no request), and the heap, one WebAssembly memory, where the
 * weights and the buffers are kept for it. It gives the same bits as matmulT (vit.js), the
 * plain product it stands in for, about three times as fast; without WebAssembly every product
 * is matmulT's. Nothing here knows the model: vit.js calls `product`, `allocate` and
 * `transposed`; this file needs only matmulT from it.
 */

  // --- the product, faster: the same sums in WebAssembly, two at a time ---------------------

  // matmulT (vit.js) is every layer's product as it reads, and most of the work: two thirds of a
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
  // the weights and every buffer of the layers are kept.
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

  // The heap: 256 pages of 64 KiB, 16 MiB, for the weights (1 MiB a model: the model, its twin
  // without position, and the copies the backward pass reads) and the buffers (3 MiB for 16
  // occlusion runs, each grown by doubling, so at most twice that with the ones outgrown);
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
