/* A prediction answered by patch numbers (a spec with a grid, docs/_ext/vx_exercises.py): the
   patches as toggle buttons beside the text box. The box holds the one answer: pressing a
   patch adds it to or takes it from the list the box holds, as the grader reads it, and
   writes the sorted list back ("[5, 6, 10, 11]"); typing in the box presses the patches it
   names. Check grades the box's text as typed (exercises.js). Tab, Space and Enter work as on
   any button; the arrow keys also move along the grid. Inlined after exercises.js. */
(function () {
  "use strict";
  document.querySelectorAll("form.vx-predict").forEach(function (form) {
    var grid = form.querySelector(".vx-grid");
    if (!grid) return;
    var id = form.dataset.exercise, input = form.querySelector("input[type=text]");
    var cells = grid.querySelectorAll("button");
    function listed() { /* the patch numbers the box names, without repeats */
      var found = [];
      (window.vxExercises.patches(id, input.value) || []).forEach(function (n) {
        if (found.indexOf(Number(n)) < 0) found.push(Number(n));
      });
      return found;
    }
    function show() {
      var found = listed();
      cells.forEach(function (cell) {
        var on = found.indexOf(Number(cell.dataset.patch)) >= 0;
        cell.setAttribute("aria-pressed", on ? "true" : "false");
      });
    }
    cells.forEach(function (cell) {
      cell.addEventListener("click", function () {
        var found = listed(), n = Number(cell.dataset.patch), at = found.indexOf(n);
        if (at >= 0) found.splice(at, 1); else found.push(n);
        found.sort(function (a, b) { return a - b; });
        input.value = "[" + found.join(", ") + "]";
        show();
      });
    });
    grid.addEventListener("keydown", function (event) { /* arrows move along the grid */
      var cols = Number(grid.style.getPropertyValue("--vx-cols"));
      var step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[event.key];
      var at = Array.prototype.indexOf.call(cells, document.activeElement);
      if (!step || at < 0 || !cells[at + step]) return;
      event.preventDefault();
      cells[at + step].focus();
    });
    input.addEventListener("input", show);
    show();
  });
})();
