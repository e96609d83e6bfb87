{% autoescape off %}// The 56 club's service worker (club/web/installable.py), release {{ release }}.
// - Keeps this release's static files, and drops an older release's.
// - Pages: from the network when it answers, and a copy kept; with no network, the
//   copy last kept, marked with when it was kept (offline.js shows it).
// - A deal sent with no network (the deal forms' POST) is kept on the phone with its
//   one-time key (queue.js); the page sends it once the network is back.
"use strict";
importScripts({{ queue_js|safe }});

var RELEASE = "{{ release|escapejs }}";
var STATIC_CACHE = "club-static-" + RELEASE;
var PAGE_CACHE = "club-pages";
var PAGES_KEPT = 60;
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
        return name.indexOf("club-static-") === 0 && name !== STATIC_CACHE;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function keepPage(request, response) {
  var headers = new Headers(response.headers);
  headers.set("X-Club-Kept-At", new Date().toISOString());
  return response.blob().then(function (body) {
    return caches.open(PAGE_CACHE).then(function (cache) {
      return cache.put(request.url, new Response(body, {status: response.status, headers: headers}))
        .then(function () { return cache.keys(); })
        .then(function (keys) {
          // The oldest copies go first once more than PAGES_KEPT are kept.
          return Promise.all(keys.slice(0, Math.max(0, keys.length - PAGES_KEPT)).map(function (key) {
            return cache.delete(key);
          }));
        });
    });
  });
}

function keptPage(request) {
  return caches.open(PAGE_CACHE).then(function (cache) {
    return cache.match(request.url);
  }).then(function (kept) {
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
  if (request.method !== "GET") return;
  if (STATIC_FILES.indexOf(url.pathname) !== -1) {
    event.respondWith(caches.match(request).then(function (kept) { return kept || fetch(request); }));
    return;
  }
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok && response.type === "basic" && !response.redirected &&
          !response.headers.get("Content-Disposition")) {
        event.waitUntil(keepPage(request, response.clone()));
      }
      return response;
    }).catch(function () { return keptPage(request); }));
  }
});
{% endautoescape %}
