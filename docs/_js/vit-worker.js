/* Notebook 08's ViT, live in the page (5 of 7): the worker. The page's script runs a second
 * time as a Web Worker, which takes part of the occlusion runs on a second core; and the page's
 * scheduler, which decides how many runs go to the worker from the times it measures, and
 * `update`, one recompute of everything the page shows. The results are the same, to the bit,
 * on either thread, with or without the WebAssembly kernel.
 *
 * Needs: loadModel (vit.js), occludedLogits, analysePicture, inkedPatches and
 * occlusionDrops (vit-questions.js), twinAnswers (vit-twins.js), `fast` (vit-fast.js); and
 * from vit-page.js, which comes after it, the page's model, models, state and pixels, `result`
 * (what the page shows) and render.
 */

  // This script's own text, read while it runs (document.currentScript is null afterwards): the
  // page starts a worker from it (see "the worker" just below). In that worker there is no document.
  const SOURCE = typeof document !== "undefined" && document.currentScript
    ? document.currentScript.textContent
    : null;

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
    result = analysePicture(model, image, state.why);
    result.twins = twinAnswers(models, image, state.order, result.logits);
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
