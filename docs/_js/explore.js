/* Explore sections on the static site (docs/_ext/vx_explore.py inlines this file).
 *
 * Each section holds its controls, the figure of its starting state and, as JSON, every state
 * the site has a frame for: the PNG that JupyterLab draws for that state, its alt text and
 * caption (all written by scripts/explore_frames.py with the package). Moving a slider shows
 * the frame of the new state; the frames are files next to the page, loaded when the section
 * comes near the screen or is first used (nothing from the network). The closed-form numbers
 * (token counts, overlap, clock periods) are computed here, in a polite live region, for every
 * setting JupyterLab's controls allow; they refuse what the package refuses, with its message,
 * and a typed value the controls do not offer with the range and the nearest they can show.
 * The calculator moves the sliders and the figure to the drawn setting nearest to its own.
 */
(function () {
  "use strict";

  // --- closed forms, as in the package ---------------------------------------------------------

  // vitexplain.count_tokens(h, w, k, s, p): patches of nn.Unfold(k, stride=s, padding=p).
  function countTokens(h, w, k, s, p) {
    var sides = [["height", h], ["width", w]];
    for (var i = 0; i < sides.length; i++) {
      var size = sides[i][1];
      if (k > size + 2 * p) {
        throw new Error("kernel k=" + k + " is larger than the padded image " + sides[i][0] +
          " " + size + " + 2*" + p + " = " + (size + 2 * p));
      }
    }
    var rows = Math.floor((h + 2 * p - k) / s) + 1;
    var cols = Math.floor((w + 2 * p - k) / s) + 1;
    return { rows: rows, cols: cols, tokens: rows * cols };
  }

  // How many of the patches along one side cover each position of the padded side.
  function coverAlongSide(size, k, s, p, count) {
    var cover = new Array(size + 2 * p).fill(0);
    for (var r = 0; r < count; r++) {
      for (var i = r * s; i < r * s + k; i++) cover[i] += 1;
    }
    return cover;
  }

  // A soft split's numbers, as notebook 05's figure states them (vitexplain.overlap_count):
  // a pixel's count is (patches over its row) x (patches over its column).
  function softSplit(h, w, k, s, p) {
    var n = countTokens(h, w, k, s, p);
    var down = coverAlongSide(h, k, s, p, n.rows);
    var across = coverAlongSide(w, k, s, p, n.cols);
    var seenRows = down.slice(p, p + h).filter(function (c) { return c > 0; }).length;
    var seenCols = across.slice(p, p + w).filter(function (c) { return c > 0; }).length;
    return {
      rows: n.rows, cols: n.cols, tokens: n.tokens, length: k * k,
      missed: h * w - seenRows * seenCols,
      most: Math.max.apply(null, down) * Math.max.apply(null, across),
    };
  }

  // NumPy's rounding: halves go to the even neighbour.
  function roundHalfEven(x) {
    var r = Math.round(x);
    return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
  }

  // vitexplain.clock_pairs(dim, count): count pairs spread evenly from the fastest to the slowest.
  function clockPairs(dim, count) {
    var pairs = Math.floor(dim / 2), m = Math.min(count, pairs), out = [];
    var step = m > 1 ? (pairs - 1) / (m - 1) : 0;
    for (var i = 0; i < m; i++) {
      var x = i === m - 1 ? pairs - 1 : i * step;
      var pick = roundHalfEven(x);
      if (out.indexOf(pick) < 0) out.push(pick);
    }
    return out;
  }

  // vitexplain.clock_periods(dim, base)[i]: tokens per turn of pair i, 2 pi base^(2i / dim).
  function clockPeriod(i, dim, base) {
    return 2 * Math.PI * Math.pow(base, 2 * i / dim);
  }

  // vitexplain.sinusoid_encoding(L, dim, base)[pos, j]: sin for even j, cos for odd j.
  function sinusoid(pos, j, dim, base) {
    var angle = pos * Math.pow(base, -2 * Math.floor(j / 2) / dim);
    return j % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
  }

  // --- words for the numbers -------------------------------------------------------------------

  function readable(x) {  // as the package's alt text says a period: 6.28, 1,780, 3.2 x 10^7
    if (x >= 1e6) {
      var e = Math.floor(Math.log10(x));
      return Number((x / Math.pow(10, e)).toPrecision(3)) + " x 10^" + e;
    }
    if (x >= 1000) return Math.round(x).toLocaleString("en-US");
    return String(Number(x.toPrecision(3)));
  }

  var describe = {
    patch_size: function (v, size) {
      var n = countTokens(size[0], size[1], v.patch_size, v.patch_size, 0);
      return "P = " + v.patch_size + ": " + n.rows + " x " + n.cols + " = " + n.tokens +
        " tokens of length " + v.patch_size * v.patch_size + ".";
    },
    clocks: function (v) {
      var periods = clockPairs(v.dim, 9).map(function (i) {
        return readable(clockPeriod(i, v.dim, v.base));
      });
      return "Tokens per turn of the clocks shown, fastest to slowest: " + periods.join(", ") +
        ". Table value at position 1, column 0 (sin of the fastest clock): " +
        sinusoid(1, 0, v.dim, v.base).toFixed(4) + "; at position 99, last column: " +
        sinusoid(99, v.dim - 1, v.dim, v.base).toFixed(4) + ".";
    },
    softsplit: function (v, size) {
      try {
        var n = softSplit(size[0], size[1], v.k, v.s, v.p);
      } catch (error) {
        return "No soft split: ValueError: " + error.message;
      }
      return n.rows + " x " + n.cols + " = " + n.tokens + " tokens of length " + n.length + "; " +
        (n.missed ? n.missed + " pixels of the picture lie in no patch"
          : "every pixel of the picture lies in at least one patch") +
        "; at most " + n.most + (n.most === 1 ? " patch covers" : " patches cover") +
        " one pixel.";
    },
  };

  // --- a typed value -------------------------------------------------------------------------

  // What a number field holds: its value, or the sentence vitexplain.Explore.refusal says when
  // the text is not one of the control's settings (the range and the nearest it can show).
  function typedValue(text, label, lab) {
    var takes = label + " takes " + lab.takes;
    var x = text.trim() === "" ? NaN : Number(text);
    if (!isFinite(x)) return { error: label + ": type a number; " + takes + "." };
    var low = lab.min + Math.floor((x - lab.min) / lab.step) * lab.step;
    var candidates = [low, low + lab.step].map(function (v) {
      return Math.min(lab.max, Math.max(lab.min, v));
    }).filter(function (v, i, all) { return all.indexOf(v) === i; });
    candidates.sort(function (a, b) { return Math.abs(a - x) - Math.abs(b - x); });
    if (candidates[0] === x) return { value: x };
    var nearest = candidates.filter(function (v) {
      return Math.abs(v - x) === Math.abs(candidates[0] - x);
    });
    var where = x < lab.min || x > lab.max ? "is outside the range" : "is not a setting";
    return {
      error: label + " = " + text.trim() + " " + where + ": " + takes + "; the nearest it can " +
        "show " + (nearest.length === 1 ? "is " + nearest[0] : "are " + nearest.join(" and ")) +
        ".",
    };
  }

  // The position in a list of drawn values nearest to a value (bases: on a log scale).
  function nearestPosition(values, value, logScale) {
    var key = logScale ? Math.log : function (x) { return x; };
    var best = 0;
    values.forEach(function (v, i) {
      if (Math.abs(key(v) - key(value)) < Math.abs(key(values[best]) - key(value))) best = i;
    });
    return best;
  }

  // --- one Explore section -------------------------------------------------------------------

  var LEGIBLE = 0.65;  // the smallest scale at which the frames' 10-pt text is 9 px (100 dpi)

  function setUp(section) {
    var data = JSON.parse(section.querySelector("script.vx-explore-data").textContent);
    var sliders = Array.prototype.slice.call(section.querySelectorAll("input.vx-explore-slider"));
    var fields = Array.prototype.slice.call(section.querySelectorAll(".vx-explore-calc [data-name]"));
    var image = section.querySelector(".vx-explore-figure img");
    var frame = section.querySelector(".vx-explore-frame");
    var zoom = section.querySelector(".vx-explore-zoom");
    var caption = section.querySelector(".vx-explore-figure figcaption");
    var numbers = section.querySelector(".vx-explore-numbers");
    var note = "";  // says which drawn setting the figure shows when the calculator's is not drawn

    // The frames load when the section comes near the screen or is first used, not with the
    // page: each is a file next to the page, decoded ahead so that a change only swaps src.
    var frames = null;
    function preload() {
      if (frames) return;
      frames = data.states.map(function (state) {
        var img = new Image();
        img.src = data.base + state.frame;
        return img;
      });
    }
    if ("IntersectionObserver" in window) {
      var observer = new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) {
          observer.disconnect();
          preload();
        }
      }, { rootMargin: "300px 0px" });
      observer.observe(section);
    }
    section.addEventListener("focusin", preload);
    section.addEventListener("pointerdown", preload);

    function stateIndex() {  // row-major over the controls, as the script wrote the states
      return sliders.reduce(function (index, slider, c) {
        return index * data.controls[c].values.length + Number(slider.value);
      }, 0);
    }

    // The calculator's setting: every value, or the refusals of the values typed outside the
    // notebook's range (nothing is clamped: the reader is told the range and the nearest).
    function fieldValues() {
      var v = {}, errors = [];
      fields.forEach(function (field) {
        var control = data.controls[Number(field.dataset.control)], lab = control.lab;
        if (lab.values) {
          v[field.dataset.name] = lab.values[Number(field.value)];
          field.setAttribute("aria-valuetext", lab.says[Number(field.value)]);
          var out = section.querySelector("output[for='" + field.id + "']");
          if (out) out.textContent = lab.labels[Number(field.value)];
          return;
        }
        var typed = typedValue(field.value, control.label, lab);
        if (typed.error) errors.push(typed.error);
        else v[field.dataset.name] = typed.value;
        if (typed.error) field.setAttribute("aria-invalid", "true");
        else field.removeAttribute("aria-invalid");
      });
      return { values: v, errors: errors };
    }

    function showNumbers() {
      var text;
      if (fields.length) {
        var got = fieldValues();
        text = got.errors.length ? got.errors.join(" ")
          : describe[data.kind](got.values, data.picture);
      } else {
        text = describe[data.kind](data.states[stateIndex()].values, data.picture);
      }
      numbers.textContent = note ? text + " " + note : text;
    }

    function showFrame() {
      var index = stateIndex(), state = data.states[index];
      sliders.forEach(function (slider, c) {
        var control = data.controls[c];
        slider.setAttribute("aria-valuetext", control.says[Number(slider.value)]);
        section.querySelector("output[for='" + slider.id + "']").textContent =
          control.labels[Number(slider.value)];
      });
      image.src = frames ? frames[index].src : data.base + state.frame;
      image.alt = state.alt;
      caption.textContent = state.caption;
    }

    function fromSliders() {  // a slider moved: the figure, and the calculator follows
      preload();
      note = "";
      sliders.forEach(function (slider, c) {
        var field = fields[c];
        if (field) {
          var lab = data.controls[c].lab, value = data.controls[c].values[Number(slider.value)];
          field.value = lab.values ? lab.values.indexOf(value) : value;
        }
      });
      showFrame();
      showNumbers();
    }

    // The calculator moved: the sliders and the figure follow to the drawn setting nearest to
    // it, and the numbers say so when it is not the calculator's own.
    function fromFields() {
      preload();
      var got = fieldValues();
      note = "";
      if (!got.errors.length) {
        var nearest = [];
        sliders.forEach(function (slider, c) {
          var control = data.controls[c], value = got.values[control.name];
          var position = nearestPosition(control.values, value, !!control.lab.values);
          slider.value = position;
          if (control.values[position] !== value) {
            nearest.push(control.label + " = " + control.labels[position] + " (frames for " +
              control.labels.join(", ") + ")");
          }
        });
        if (nearest.length) {
          note = "This page has no frame for this setting: the figure shows the nearest drawn, " +
            nearest.join(", ") + ".";
        }
        showFrame();
      }
      showNumbers();
    }

    // Actual size: the frame at its own pixels in a box that scrolls sideways, under the
    // sliders (not a dialog over them). It starts so where fitting would shrink the text
    // below 9 px (a phone); the button switches.
    var chosen = null;
    function setZoom(on) {
      frame.classList.toggle("vx-explore-actual", on);
      zoom.setAttribute("aria-pressed", String(on));
      if (on) {
        frame.tabIndex = 0;  // a box that scrolls is reached by Tab
        frame.setAttribute("role", "region");
        frame.setAttribute("aria-label", "The figure at actual size: scroll sideways");
      } else {
        frame.removeAttribute("tabindex");
        frame.removeAttribute("role");
        frame.removeAttribute("aria-label");
      }
    }
    function fitZoom() {
      if (chosen !== null) return;
      var natural = Number(image.getAttribute("width"));
      setZoom(section.clientWidth / natural < LEGIBLE);
    }
    zoom.addEventListener("click", function () {
      chosen = zoom.getAttribute("aria-pressed") !== "true";
      setZoom(chosen);
    });
    window.addEventListener("resize", fitZoom);

    sliders.forEach(function (slider) { slider.addEventListener("input", fromSliders); });
    fields.forEach(function (field) { field.addEventListener("input", fromFields); });
    section.querySelectorAll("[hidden].vx-explore-live").forEach(function (part) {
      part.hidden = false;
    });
    fitZoom();
    sliders.forEach(function (slider, c) {
      slider.setAttribute("aria-valuetext", data.controls[c].says[Number(slider.value)]);
    });
    fieldValues();
    showNumbers();
  }

  // A skip link, right after the page's own, to the first Explore slider: the sliders sit
  // after the whole notebook, 60 to 90 Tab stops down.
  function addSkipLink(first) {
    var link = document.createElement("a");
    link.className = "vx-explore-skip";
    link.href = "#" + first.id;
    link.textContent = "Skip to the Explore controls";
    link.addEventListener("click", function (event) {
      event.preventDefault();
      first.focus();
      first.scrollIntoView({ block: "center" });
    });
    var theirs = document.querySelector("a.skip-link, .skip-link a, a[href='#main-content']");
    if (theirs) theirs.insertAdjacentElement("afterend", link);
    else document.body.insertBefore(link, document.body.firstChild);
  }

  window.vxExplore = {
    countTokens: countTokens, softSplit: softSplit, clockPairs: clockPairs,
    clockPeriod: clockPeriod, sinusoid: sinusoid, typedValue: typedValue,
    describe: function (kind, v, size) { return describe[kind](v, size); },
  };
  function setUpAll() {
    document.querySelectorAll(".vx-explore").forEach(setUp);
    var first = document.querySelector(".vx-explore input.vx-explore-slider");
    if (first) addSkipLink(first);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
})();
