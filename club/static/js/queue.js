// The deals kept on this phone until they can be sent: IndexedDB "club-offline", store
// "deals", one entry a deal, in the order kept. Shared by the service worker (which
// keeps a deal whose sending failed) and offline.js (which shows and sends them).
// An entry: {id, url, page, fields: [[name, value], ...], number, queuedAt,
// state: "waiting" | "refused", answer (the server's words when refused)}.
(function (root) {
  "use strict";
  var DB = "club-offline";
  var STORE = "deals";

  function open() {
    return new Promise(function (resolve, reject) {
      var request = root.indexedDB.open(DB, 1);
      request.onupgradeneeded = function () {
        request.result.createObjectStore(STORE, {keyPath: "id", autoIncrement: true});
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  function run(mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var transaction = db.transaction(STORE, mode);
        var request = work(transaction.objectStore(STORE));
        transaction.oncomplete = function () { db.close(); resolve(request && request.result); };
        transaction.onerror = function () { db.close(); reject(transaction.error); };
        transaction.onabort = function () { db.close(); reject(transaction.error); };
      });
    });
  }

  root.clubQueue = {
    add: function (entry) { return run("readwrite", function (s) { return s.add(entry); }); },
    put: function (entry) { return run("readwrite", function (s) { return s.put(entry); }); },
    remove: function (id) { return run("readwrite", function (s) { return s.delete(id); }); },
    all: function () {
      return run("readonly", function (s) { return s.getAll(); }).then(function (entries) {
        return (entries || []).sort(function (a, b) { return a.id - b.id; });
      });
    }
  };
})(self);
