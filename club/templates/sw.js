{% autoescape off %}// The 56 club's service worker (club/web/installable.py), release {{ release }}.
// - Keeps this release's static files, and drops an older release's.
// - Pages: from the network when it answers, and a copy kept when the answer allows it
//   (club/web/kept.py: never one sent private or no-store, as every logged-in account's
//   page is); with no network, the copy last kept, marked with when it was kept
//   (offline.js shows it). A link holder's own scorer page is kept apart from the rest,
//   so browsing elsewhere never pushes it out; a page is kept once, whatever query
//   parameters the address adds beside those the server says shape it.
// - An answer that clears the site's cache (logging out) drops the kept pages, but not
//   the scorer pages, nor any deal waiting to be sent.
// - A deal sent with no network (the deal forms' POST) is kept on the phone with its
//   one-time key (queue.js); the page sends it once the network is back.
"use strict";
importScripts({{ queue_js|safe }});

var RELEASE = "{{ release|escapejs }}";
var STATIC_CACHE = "club-static-" + RELEASE;
var PAGE_CACHE = "club-pages-2";
var PAGES_KEPT = 60;
var LINK_CACHE = "club-scorer-pages";
var LINKS_KEPT = 12;
var PAGE_CACHES = [PAGE_CACHE, LINK_CACHE];
var STATIC_FILES = {{ static_json|safe }};
var OFFLINE_PAGE = "{{ offline_url|escapejs }}";
var DEAL_POST = /^\/(?:s\/[^/]+|games\/\d+)\/deals\/$/;

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(STATIC_CACHE)
      .then(function (cache) { return cache.addAll(STATIC_FILES.concat([OFFLINE_PAGE])); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        // An earlier worker's page cache ("club-pages") kept pages whatever their headers.
        return (name.indexOf("club-static-") === 0 && name !== STATIC_CACHE) || name === "club-pages";
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

// Whether the server lets the phone keep this answer at all.
function mayKeep(response) {
  var control = (response.headers.get("Cache-Control") || "").toLowerCase();
  return !/(^|[\s,])(no-store|private)([\s,=]|$)/.test(control);
}

// The address a page is kept under: its path, and of its query only the parameters the
// server names in Club-Page-Query (all of them when it names none at all).
function keptAs(url, names) {
  var parsed = new URL(url);
  if (names === null) return parsed.origin + parsed.pathname + parsed.search;
  var wanted = names.split(/\s+/).filter(Boolean);
  var pairs = [];
  parsed.searchParams.forEach(function (value, name) {
    if (wanted.indexOf(name) !== -1 && value !== "") pairs.push([name, value]);
  });
  pairs.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0; });
  var query = pairs.map(function (pair) {
    return encodeURIComponent(pair[0]) + "=" + encodeURIComponent(pair[1]);
  }).join("&");
  return parsed.origin + parsed.pathname + (query ? "?" + query : "");
}

function keepPage(request, response) {
  var headers = new Headers(response.headers);
  headers.set("X-Club-Kept-At", new Date().toISOString());
  var scorer = response.headers.has("Club-Scorer-Page");
  var name = scorer ? LINK_CACHE : PAGE_CACHE;
  var most = scorer ? LINKS_KEPT : PAGES_KEPT;
  var address = keptAs(request.url, response.headers.get("Club-Page-Query"));
  return response.blob().then(function (body) {
    return caches.open(name).then(function (cache) {
      return cache.delete(address)  // put again at the end: the newest is kept longest
        .then(function () {
          return cache.put(address, new Response(body, {status: response.status, headers: headers}));
        })
        .then(function () { return cache.keys(); })
        .then(function (keys) {
          // The oldest copies go first once more than the cache holds; a scorer's page
          // is in a cache of its own, which other pages never push out.
          return Promise.all(keys.slice(0, Math.max(0, keys.length - most)).map(function (key) {
            return cache.delete(key);
          }));
        });
    });
  });
}

// The kept copy of ``url``: the one kept under the address ``url`` comes to once the
// query parameters its copy's page does not read are set aside.
function findKept(url) {
  return Promise.all(PAGE_CACHES.map(function (name) {
    return caches.open(name).then(function (cache) {
      return cache.keys(url, {ignoreSearch: true}).then(function (keys) {
        return Promise.all(keys.map(function (key) {
          return cache.match(key).then(function (kept) {
            return kept && keptAs(url, kept.headers.get("Club-Page-Query")) === key.url ? kept : null;
          });
        }));
      });
    });
  })).then(function (found) {
    return [].concat.apply([], found).filter(Boolean)[0] || null;
  });
}

// Logging out: the pages kept go; the scorer pages and the deals waiting stay.
function forgetPages() {
  return caches.delete(PAGE_CACHE);
}

function clearsCache(response) {
  return /(^|[\s,])"(cache|\*)"/.test(response.headers.get("Clear-Site-Data") || "");
}

function keptPage(request) {
  return findKept(request.url).then(function (kept) {
    if (!kept) {
      return caches.match(OFFLINE_PAGE).then(function (page) {
        return page || new Response("", {status: 503});
      });
    }
    var at = kept.headers.get("X-Club-Kept-At") || "";
    return kept.text().then(function (html) {
      // The page says when it was kept: offline.js shows it, and the deal form's key is
      // made new (the kept one may have been used since).
      html = html.replace("<html ", '<html data-kept-at="' + at + '" ');
      return new Response(html, {status: 200, headers: kept.headers});
    });
  });
}

function pageOf(path) {
  return path.replace(/deals\/$/, "");
}

function keepDeal(request, path) {
  return request.formData().then(function (form) {
    var fields = [];
    form.forEach(function (value, name) { fields.push([name, String(value)]); });
    if (!form.get("idempotency_key")) fields.push(["idempotency_key", self.crypto.randomUUID()]);
    var page = pageOf(path);
    return self.clubQueue.add({
      url: path,
      page: page,
      fields: fields,
      number: Number(form.get("number")) || 0,
      queuedAt: Date.now(),
      state: "waiting"
    }).then(function () {
      if (request.headers.get("HX-Request")) {
        // htmx swaps nothing and tells the page, which lists it and clears the form.
        return new Response("", {status: 200, headers: {"HX-Reswap": "none", "HX-Trigger": "club-deal-kept"}});
      }
      return Response.redirect(page + "#offline-queue", 303);
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // A deal the page sends from its queue (offline.js) goes to the network as it is:
  // if it fails, it is still in the queue, to be sent again with the same key.
  if (request.method === "POST" && DEAL_POST.test(url.pathname) && !request.headers.get("X-Club-Queued")) {
    var copy = request.clone();
    event.respondWith(fetch(request).catch(function () { return keepDeal(copy, url.pathname); }));
    return;
  }
  if (request.method === "POST" && request.mode === "navigate") {
    // Read only for what it asks of the phone: logging out clears the kept pages.
    event.respondWith(fetch(request).then(function (response) {
      if (clearsCache(response)) event.waitUntil(forgetPages());
      return response;
    }));
    return;
  }
  if (request.method !== "GET") return;
  if (STATIC_FILES.indexOf(url.pathname) !== -1) {
    event.respondWith(caches.match(request).then(function (kept) { return kept || fetch(request); }));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).then(function (response) {
      if (clearsCache(response)) {
        event.waitUntil(forgetPages());
      } else if (response.ok && response.type === "basic" && !response.redirected &&
          !response.headers.get("Content-Disposition") && mayKeep(response)) {
        event.waitUntil(keepPage(request, response.clone()));
      }
      return response;
    }).catch(function () { return keptPage(request); }));
  }
});

// The logged-out page asks too (offline.js), for a logout this worker did not see.
self.addEventListener("message", function (event) {
  if (event.data && event.data.type === "club-forget-pages") event.waitUntil(forgetPages());
});
{% endautoescape %}
