// vitexplain's additions to the theme's pages (classic script, no network: it works from file://).
// * A display formula wider than its column scrolls in its own box (.vx-math, vx.css): such a
//   box gets a Tab stop, as the theme gives code and tables, and the class vx-scrolls, whose
//   shadows show that there is more to the side.
// * Every figure gets a "Full size" button that opens it at its own size in a dialog.
// * An animated GIF gets a Pause/Play button; with prefers-reduced-motion it starts paused
//   (a still of its first frame drawn on a canvas).
// * Every code block (not a cell's output), a worked solution's too, gets a Copy button.
// * A page opened from a search result (?highlight=...) marks the searched words: Sphinx's own
//   highlighter skips every page that loads its search code, as this theme's pages all do.
(() => {
  const ready = (fn) =>
    document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn) : fn();

  // --- formulas that scroll -------------------------------------------------------------------
  const markScrollBoxes = () => {
    for (const box of document.querySelectorAll(".vx-math")) {
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      box.tabIndex = scrolls ? 0 : -1;
      box.classList.toggle("vx-scrolls", scrolls);
      if (scrolls) box.title = "This formula is wider than the page: scroll it sideways";
      else box.removeAttribute("title");
    }
  };
  let timer = null;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(markScrollBoxes, 200);
  });

  // --- figures at full size -------------------------------------------------------------------
  let dialog = null;
  const zoomDialog = () => {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "vx-zoom-dialog";
    dialog.setAttribute("aria-label", "Figure at full size");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "vx-button vx-zoom-close";
    close.textContent = "Close";
    close.addEventListener("click", () => dialog.close());
    const body = document.createElement("div");
    body.className = "vx-zoom-body";
    dialog.append(close, body);
    dialog.addEventListener("close", () => body.replaceChildren());
    document.body.append(dialog);
    return dialog;
  };
  const label = (figure) => {
    const caption = figure.querySelector("figcaption");
    const match = caption && caption.textContent.match(/^\s*(Figure [\d.]+)/);
    return match ? match[1] : "the figure";
  };
  const addZoom = (figure, img) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "vx-button vx-zoom";
    button.textContent = "Full size";
    button.setAttribute("aria-label", `Open ${label(figure)} at full size`);
    button.addEventListener("click", () => {
      const box = zoomDialog();
      const copy = document.createElement("img");
      copy.src = img.dataset.vxAnimated || img.src;
      copy.alt = img.alt;
      box.querySelector(".vx-zoom-body").replaceChildren(copy);
      box.showModal();
      box.querySelector(".vx-zoom-close").focus();
    });
    figure.querySelector(".vx-figure-tools").append(button);
  };

  // --- animations that pause ------------------------------------------------------------------
  const still = (img) => {
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    canvas.getContext("2d").drawImage(img, 0, 0);
    return canvas.toDataURL("image/png");
  };
  const addPause = (figure, img) => {
    const animated = img.src;
    img.dataset.vxAnimated = animated;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "vx-button vx-pause";
    const set = (playing) => {
      button.textContent = playing ? "Pause" : "Play";
      button.setAttribute("aria-label", `${playing ? "Pause" : "Play"} the animation`);
      button.setAttribute("aria-pressed", String(!playing));
      img.src = playing ? animated : img.dataset.vxStill;
    };
    button.addEventListener("click", () => set(img.src !== animated));
    figure.querySelector(".vx-figure-tools").prepend(button);
    const start = () => {
      img.dataset.vxStill = still(img);
      set(!window.matchMedia("(prefers-reduced-motion: reduce)").matches);
    };
    img.complete ? start() : img.addEventListener("load", start, { once: true });
  };

  const figures = () => {
    for (const figure of document.querySelectorAll("figure.vx-figure")) {
      const img = figure.querySelector("img");
      if (!img || figure.querySelector(".vx-figure-tools")) continue;
      const tools = document.createElement("div");
      tools.className = "vx-figure-tools";
      figure.insertBefore(tools, figure.querySelector("figcaption"));
      if (img.src.startsWith("data:image/gif")) addPause(figure, img);
      addZoom(figure, img);
    }
  };

  // --- copy buttons ---------------------------------------------------------------------------
  const copyText = async (text) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = document.createElement("textarea"); // a page without clipboard permission
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
  };
  const copyButtons = () => {
    const status = document.createElement("div");
    status.className = "visually-hidden vx-copy-status";
    status.setAttribute("role", "status");
    document.body.append(status);
    // (.vx-code-box: a worked solution's code, docs/_ext/vx_exercises.py)
    for (const block of document.querySelectorAll("article div.highlight, article .vx-code-box")) {
      if (block.closest(".cell_output")) continue; // an output is not code to copy
      const pre = block.querySelector("pre");
      if (!pre || block.querySelector(".vx-copy")) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "vx-button vx-copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy the code");
      button.addEventListener("click", async () => {
        await copyText(pre.textContent.replace(/\n$/, ""));
        button.textContent = "Copied";
        status.textContent = "Code copied";
        setTimeout(() => {
          button.textContent = "Copy";
          status.textContent = "";
        }, 1500);
      });
      block.prepend(button);
    }
  };

  const markSearchWords = () => {
    const searched = new URLSearchParams(window.location.search).has("highlight");
    const searchPage = window.location.pathname.endsWith("/search.html");
    if (searched && !searchPage && typeof SphinxHighlight !== "undefined") {
      SphinxHighlight.highlightSearchWords();
    }
  };

  ready(() => {
    markSearchWords();
    markScrollBoxes();
    figures();
    copyButtons();
  });
})();
