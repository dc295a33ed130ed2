(function () {
  // Sortable, filterable tables (class "sortable"): the page reads the same without this script.
  var minus = /\u2212/g;
  function key(cell, numeric) {
    var text = cell.textContent.trim();
    if (!numeric) return text.toLowerCase();
    var v = parseFloat(text.replace(minus, "-"));
    return isNaN(v) ? null : v;
  }
  [].forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var body = table.tBodies[0], rows = [].slice.call(body.rows), heads = table.tHead.rows[0].cells;
    var box = document.createElement("input");
    box.type = "search"; box.className = "filter"; box.placeholder = "Filter rows";
    box.setAttribute("aria-label", "Filter the rows of this table");
    table.parentNode.parentNode.insertBefore(box, table.parentNode);
    box.addEventListener("input", function () {
      var q = box.value.trim().toLowerCase();
      rows.forEach(function (r) { r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0; });
    });
    [].forEach.call(heads, function (th, i) {
      th.tabIndex = 0; th.classList.add("sorts"); th.title = "Sort by this column";
      function sort() {
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1, numeric = i > 0;
        [].forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
        rows.map(function (r, n) { return [key(r.cells[i], numeric), n, r]; }).sort(function (a, b) {
          if (a[0] === null || b[0] === null) return a[0] === b[0] ? a[1] - b[1] : a[0] === null ? 1 : -1;
          return a[0] < b[0] ? -dir : a[0] > b[0] ? dir : a[1] - b[1];
        }).forEach(function (x) { body.appendChild(x[2]); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
})();
