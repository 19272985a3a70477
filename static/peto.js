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
