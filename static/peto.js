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
