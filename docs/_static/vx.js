// A display formula wider than its column scrolls in its own box (.vx-math, vx.css); a box that
// scrolls gets a Tab stop so a keyboard can scroll it too, as the theme does for code and tables.
(() => {
  const mark = () => {
    for (const box of document.querySelectorAll(".vx-math")) {
      box.tabIndex = box.scrollWidth > box.clientWidth ? 0 : -1;
    }
  };
  let timer = null;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(mark, 200);
  });
  document.addEventListener("DOMContentLoaded", mark);
})();
