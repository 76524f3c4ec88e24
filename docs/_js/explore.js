/* Explore sections on the static site (docs/_ext/vx_explore.py inlines this file).
 *
 * Each section holds its controls, the figure of its starting state and, as JSON, every state
 * the site has a frame for: the PNG that JupyterLab draws for that state, its alt text and
 * caption (all written by scripts/explore_frames.py with the package). Moving a slider shows
 * the frame of the new state; nothing is fetched, the frames are files next to the page.
 * The closed-form numbers (token counts, overlap, clock periods) are computed here, for every
 * setting JupyterLab's controls allow, and refuse what the package refuses, with its message.
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
        "; at most " + n.most + " patches cover one pixel.";
    },
  };

  // --- one Explore section -------------------------------------------------------------------

  function setUp(section) {
    var data = JSON.parse(section.querySelector("script.vx-explore-data").textContent);
    var sliders = Array.prototype.slice.call(section.querySelectorAll("input.vx-explore-slider"));
    var fields = Array.prototype.slice.call(section.querySelectorAll(".vx-explore-calc [data-name]"));
    var image = section.querySelector(".vx-explore-figure img");
    var caption = section.querySelector(".vx-explore-figure figcaption");
    var numbers = section.querySelector(".vx-explore-numbers");
    var frames = data.states.map(function (state) {  // decoded ahead: a change only swaps src
      var img = new Image();
      img.src = data.base + state.frame;
      return img;
    });

    function stateIndex() {  // row-major over the controls, as the script wrote the states
      return sliders.reduce(function (index, slider, c) {
        return index * data.controls[c].values.length + Number(slider.value);
      }, 0);
    }

    function fieldValues() {  // the calculator's setting, clamped to JupyterLab's range
      var v = {};
      fields.forEach(function (field) {
        var lab = data.controls[Number(field.dataset.control)].lab;
        if (lab.values) {
          v[field.dataset.name] = lab.values[Number(field.value)];
          field.setAttribute("aria-valuetext", lab.labels[Number(field.value)]);
        } else {
          var x = Math.round(Number(field.value));
          x = Math.min(lab.max, Math.max(lab.min, isNaN(x) ? lab.min : x));
          v[field.dataset.name] = lab.min + Math.round((x - lab.min) / lab.step) * lab.step;
        }
      });
      return v;
    }

    function showNumbers() {
      fields.forEach(function (field) {
        var out = section.querySelector("output[for='" + field.id + "']");
        if (out && field.type === "range") out.textContent = field.getAttribute("aria-valuetext");
      });
      var v = fields.length ? fieldValues() : data.states[stateIndex()].values;
      numbers.textContent = describe[data.kind](v, data.picture);
    }

    function show() {
      var state = data.states[stateIndex()];
      sliders.forEach(function (slider, c) {
        var label = data.controls[c].labels[Number(slider.value)];
        slider.setAttribute("aria-valuetext", label);
        section.querySelector("output[for='" + slider.id + "']").textContent = label;
        var field = fields[c];  // the calculator follows the sliders
        if (field) {
          var lab = data.controls[c].lab, value = data.controls[c].values[Number(slider.value)];
          field.value = lab.values ? lab.values.indexOf(value) : value;
        }
      });
      image.src = frames[stateIndex()].src;
      image.alt = state.alt;
      caption.textContent = state.caption;
      showNumbers();
    }

    sliders.forEach(function (slider) { slider.addEventListener("input", show); });
    fields.forEach(function (field) { field.addEventListener("input", showNumbers); });
    section.querySelectorAll("[hidden].vx-explore-live").forEach(function (part) {
      part.hidden = false;
    });
    showNumbers();
  }

  window.vxExplore = {
    countTokens: countTokens, softSplit: softSplit, clockPairs: clockPairs,
    clockPeriod: clockPeriod, sinusoid: sinusoid,
  };
  function setUpAll() { document.querySelectorAll(".vx-explore").forEach(setUp); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpAll);
  } else {
    setUpAll();
  }
})();
