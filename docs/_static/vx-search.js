// Search results with sections and snippets, offline (classic script; the search page only).
// Sphinx's search finds the pages; its summaries would be fetched from the pages, which a browser
// refuses for file:// pages. window.VX_SEARCH_TEXT (vx-search-text.js, written by vx_site.py at
// build time) holds every section's text: each result is pointed at its best section, gets a
// snippet with the searched words marked, and lists the page's other sections that match; every
// link carries ?highlight= so that the page it opens marks the words.
(() => {
  const sections = window.VX_SEARCH_TEXT || {};
  const words = (new URLSearchParams(window.location.search).get("q") || "")
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length > 1 && !w.startsWith("-"));
  if (!words.length) return;

  // Sphinx's highlighter reads ?highlight= on the page a result opens (its localStorage way
  // does not reach another file:// page).
  const highlight = `?highlight=${encodeURIComponent(words.join(" "))}`;
  const hits = (text) => words.reduce((n, w) => n + text.toLowerCase().split(w).length - 1, 0);

  // The snippet: about 200 characters around the first searched word, each word in a <mark>.
  const snippet = (text) => {
    const lower = text.toLowerCase();
    const at = Math.min(...words.map((w) => lower.indexOf(w)).filter((i) => i >= 0));
    const start = Math.max(0, at - 80);
    const piece = (start ? "… " : "") + text.slice(start, start + 200) + (start + 200 < text.length ? " …" : "");
    const p = document.createElement("p");
    p.className = "context vx-snippet";
    const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "gi");
    for (const part of piece.split(pattern)) {
      if (!part) continue;
      if (words.includes(part.toLowerCase())) {
        const mark = document.createElement("mark");
        mark.textContent = part;
        p.append(mark);
      } else p.append(part);
    }
    return p;
  };

  const improve = (item) => {
    if (item.dataset.vx) return;
    item.dataset.vx = "1";
    const link = item.querySelector("a");
    if (!link) return;
    const [page, anchor] = link.getAttribute("href").split("#");
    const docname = page.replace(/\.html$/, "");
    const found = (sections[docname] || [])
      .map(([id, title, text]) => ({ id, title, text: `${title} ${text}`, n: hits(`${title} ${text}`) }))
      .filter((s) => s.n > 0);
    if (!found.length) return;
    const best = anchor ? found.find((s) => s.id === anchor) || found[0] : found.reduce((a, b) => (b.n > a.n ? b : a));
    if (anchor) link.setAttribute("href", `${page}${highlight}#${anchor}`);
    else {
      link.setAttribute("href", `${page}${highlight}#${best.id}`);
      if (best.title && !link.textContent.includes(best.title)) link.textContent += ` › ${best.title}`;
    }
    item.append(snippet(best.text));
    const others = found.filter((s) => s !== best).slice(0, 4);
    if (others.length) {
      const list = document.createElement("ul");
      list.className = "vx-also";
      for (const s of others) {
        const a = document.createElement("a");
        a.href = `${page}${highlight}#${s.id}`;
        a.textContent = s.title;
        list.append(document.createElement("li"));
        list.lastChild.append(a);
      }
      const label = document.createElement("span");
      label.className = "vx-also-label";
      label.textContent = "Also in: ";
      item.append(label, list);
    }
  };

  const watch = () => {
    const results = document.getElementById("search-results");
    if (!results) return;
    const update = () => results.querySelectorAll("ul.search > li").forEach(improve);
    new MutationObserver(update).observe(results, { childList: true, subtree: true });
    update();
  };
  document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", watch) : watch();
})();
