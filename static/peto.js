// peto's one script: small things a browser knows that a form cannot ask
// for. Every page works without it.
"use strict";

// The sign-in and invitation forms carry the browser's time zone, which a
// profile still on the default (UTC) takes at sign-in.
for (const input of document.querySelectorAll("input[data-browser-zone]")) {
  try {
    input.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    // An old browser without Intl: the profile's list is the way.
  }
}

// Folded menus (<details class="menu">) close as menus do: one open at a
// time, and a click elsewhere or Escape closes them.
const menus = document.querySelectorAll("details.menu");
for (const menu of menus) {
  menu.addEventListener("toggle", () => {
    if (!menu.open) return;
    for (const other of menus) if (other !== menu) other.open = false;
  });
}
document.addEventListener("click", (event) => {
  for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const menu of menus) {
    if (!menu.open) continue;
    menu.open = false;
    menu.querySelector("summary").focus();
  }
});

// Boards: a card dragged to another column (mouse, pen, or a long press on
// a touch screen), or moved with Shift+← / Shift+→ from its title, posts
// the same change its own form posts, in the background. A message says
// what moved and offers Undo (also Ctrl+Z while it shows). Without this
// script the forms on each card do the same, one page at a time.
for (const board of document.querySelectorAll(".board[data-board]")) {
  const columns = [...board.querySelectorAll("[data-column]")];

  // A column folded stays folded on this browser's next visit.
  for (const column of columns) {
    const fold = column.querySelector(".board__fold");
    const key = `peto.folded.${board.dataset.board}.${column.dataset.column}`;
    try {
      if (localStorage.getItem(key) === "1") fold.open = false;
      fold.addEventListener("toggle", () => {
        if (fold.open) localStorage.removeItem(key);
        else localStorage.setItem(key, "1");
      });
    } catch {
      // Storage refused (a private window): folding still works, for this visit.
    }
  }
  const toast = board.parentElement.querySelector(".board__toast");
  let undoLast = null;
  let toastTimer = 0;

  const fill = (text, vars) => text.replace(/\{(\w+)\}/g, (m, k) => vars[k] ?? m);
  const titleOf = (card) => card.querySelector("a").textContent.trim();
  const headingOf = (column) => column.querySelector("h2").firstChild.textContent.trim();

  function hideToast() {
    toast.hidden = true;
    undoLast = null;
  }
  function say(text, undo) {
    toast.replaceChildren();
    const words = document.createElement("span");
    words.textContent = text;
    toast.append(words);
    undoLast = undo;
    if (undo) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = board.dataset.undo;
      button.addEventListener("click", () => undo());
      toast.append(button);
    }
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(hideToast, 10000);
  }

  // Keeps the two columns' counts and "nothing here" lines true after a move
  // (a count is of all the column's records, not only the cards shown).
  function recount(from, to) {
    for (const [column, step] of [[from, -1], [to, 1]]) {
      const badge = column.querySelector("h2 .badge");
      if (badge) badge.textContent = String(Number(badge.textContent) + step);
      const empty = column.querySelector(".board__empty");
      if (empty) empty.hidden = column.querySelector("[data-card]") !== null;
    }
  }

  function place(card, column) {
    // Moving an element drops its focus: a card moved from the keyboard keeps it.
    const focused = card.contains(document.activeElement) ? document.activeElement : null;
    const from = card.closest(".board__column");
    column.querySelector(".board__cards").prepend(card);
    focused?.focus();
    const select = card.querySelector('select[name="status"]');
    if (select) select.value = column.dataset.value;
    if (from !== column) recount(from, column);
  }

  // The change, posted as the card's form would post it; true when it was made.
  async function post(card, value) {
    const body = new URLSearchParams();
    body.set("csrf", card.querySelector('input[name="csrf"]').value);
    body.set(card.dataset.field, value);
    body.set("return_to", location.pathname);
    const answer = await fetch(card.dataset.action, {
      method: "POST",
      body,
      credentials: "same-origin",
    }).catch(() => null);
    // A change made answers with the board again (after its redirect); a
    // refused one with the record's page and the reason, an expired session
    // with the sign-in page.
    return (
      answer !== null &&
      answer.ok &&
      answer.redirected &&
      new URL(answer.url).pathname === location.pathname
    );
  }

  async function move(card, column, undoable = true) {
    const from = card.closest("[data-column]");
    if (!column.dataset.value || column === from) return;
    place(card, column);
    if (!(await post(card, column.dataset.value))) {
      place(card, from);
      say(fill(board.dataset.failed, { title: titleOf(card) }));
      return;
    }
    card.dataset.value = column.dataset.value;
    if (!undoable) {
      say(fill(board.dataset.undone, { title: titleOf(card), status: headingOf(column) }));
      return;
    }
    say(fill(board.dataset.moved, { title: titleOf(card), status: headingOf(column) }), () => {
      hideToast();
      if (card.dataset.value === column.dataset.value) move(card, from, false);
    });
  }

  board.addEventListener("keydown", (event) => {
    if (!event.shiftKey || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
    const card = event.target.closest("[data-card]");
    if (!card || !card.dataset.action || event.target.tagName !== "A") return;
    const ltr = getComputedStyle(board).direction !== "rtl";
    const step = (event.key === "ArrowRight") === ltr ? 1 : -1;
    let i = columns.indexOf(card.closest("[data-column]")) + step;
    while (i >= 0 && i < columns.length && !columns[i].dataset.value) i += step;
    if (i < 0 || i >= columns.length) return;
    event.preventDefault();
    move(card, columns[i]);
  });
  document.addEventListener("keydown", (event) => {
    if (undoLast && !toast.hidden && (event.ctrlKey || event.metaKey) && event.key === "z") {
      event.preventDefault();
      undoLast();
    }
  });

  // Dragging: the card follows the pointer; the column under it is marked.
  let drag = null;
  const columnAt = (x, y) => {
    for (const column of columns) {
      const box = column.getBoundingClientRect();
      if (x >= box.left && x <= box.right && y >= box.top) return column;
    }
    return null;
  };
  function begin(card, event) {
    drag = { card, x: event.clientX, y: event.clientY, id: event.pointerId, target: null };
    card.classList.add("board__card--dragging");
  }
  function follow(event) {
    if (!drag || event.pointerId !== drag.id) return;
    drag.card.style.transform = `translate(${event.clientX - drag.x}px, ${event.clientY - drag.y}px)`;
    const column = columnAt(event.clientX, event.clientY);
    const target = column && column.dataset.value ? column : null;
    if (target !== drag.target) {
      drag.target?.classList.remove("board__column--target");
      target?.classList.add("board__column--target");
      drag.target = target;
    }
  }
  function end(event, cancelled) {
    if (!drag || event.pointerId !== drag.id) return;
    const { card, target } = drag;
    drag = null;
    card.classList.remove("board__card--dragging");
    card.style.transform = "";
    target?.classList.remove("board__column--target");
    if (!cancelled && target) {
      // The click that ends a drag does not follow the card's link.
      const swallow = (e) => e.preventDefault();
      card.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => card.removeEventListener("click", swallow, { capture: true }), 0);
      move(card, target);
    }
  }

  for (const card of board.querySelectorAll("[data-card][data-action]")) {
    let press = 0;
    let start = null;
    card.addEventListener("pointerdown", (event) => {
      if (event.button !== 0 || event.target.closest("button, select, input, label, summary")) return;
      start = { x: event.clientX, y: event.clientY, id: event.pointerId };
      if (event.pointerType === "touch") {
        // A long press starts a drag; a move before it is a scroll.
        press = setTimeout(() => begin(card, event), 300);
      }
    });
    card.addEventListener("pointermove", (event) => {
      if (!start || event.pointerId !== start.id) return;
      const far = Math.hypot(event.clientX - start.x, event.clientY - start.y) > 6;
      if (event.pointerType === "touch" && !drag) {
        if (far) clearTimeout(press);
        return;
      }
      if (!drag && far) {
        begin(card, event);
        drag.x = start.x;
        drag.y = start.y;
        card.setPointerCapture(event.pointerId);
      }
      follow(event);
    });
    card.addEventListener("pointerup", (event) => {
      clearTimeout(press);
      start = null;
      end(event, false);
    });
    card.addEventListener("pointercancel", (event) => {
      clearTimeout(press);
      start = null;
      end(event, true);
    });
    // While a touch drag runs, the finger moves the card, not the page.
    card.addEventListener(
      "touchmove",
      (event) => {
        if (drag) event.preventDefault();
      },
      { passive: false },
    );
    // A long press is a drag here, not the link's menu.
    card.addEventListener("contextmenu", (event) => {
      if (drag) event.preventDefault();
    });
    // Links and images are not dragged by the browser itself.
    card.addEventListener("dragstart", (event) => event.preventDefault());
  }
}

// Tables: a box in the heading ticks or clears every row for the action
// below the table; without the script each row is ticked on its own.
for (const table of document.querySelectorAll("table[data-select-all]")) {
  const heading = table.querySelector("thead th");
  const rows = [...table.querySelectorAll("tbody input[type=checkbox][name=id]")];
  if (!heading || rows.length === 0) continue;
  const all = document.createElement("input");
  all.type = "checkbox";
  all.setAttribute("aria-label", table.dataset.selectAll);
  heading.replaceChildren(all);
  const show = () => {
    const ticked = rows.filter((box) => box.checked).length;
    all.checked = ticked === rows.length;
    all.indeterminate = ticked > 0 && ticked < rows.length;
  };
  all.addEventListener("change", () => {
    for (const box of rows) box.checked = all.checked;
  });
  for (const box of rows) box.addEventListener("change", show);
  show();
}
