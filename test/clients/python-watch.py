"""A reflector written with Debian's python3-kubernetes: list the ConfigMaps of a namespace, then
`kubernetes.watch.Watch().stream(v1.list_namespaced_config_map, ...)` from the list's resourceVersion;
when the connection drops, watch again from the last resourceVersion seen (events and bookmarks); on 410
(the HTTP status of the watch request, or an ERROR event the library raises) list again and go on from
there. It keeps its own cache and prints what it does as JSON lines (protocol:
test/clients/client-harness.ts); "dump" on stdin prints the cache, closing stdin stops it.

    /usr/bin/python3 test/clients/python-watch.py <kubeconfig> <namespace>
"""
import json
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

kubeconfig, namespace = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=kubeconfig)
v1 = client.CoreV1Api()

out_lock = threading.Lock()
cache_lock = threading.Lock()
cache = {}  # name -> {"name", "rv", "data"}
state = {"rv": ""}


def emit(obj):
    with out_lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def entry(meta_name, rv, data):
    return {"name": meta_name, "rv": rv, "data": data or {}}


def relist():
    lst = v1.list_namespaced_config_map(namespace)
    rv = lst.metadata.resource_version
    fresh = {o.metadata.name: entry(o.metadata.name, o.metadata.resource_version, o.data) for o in lst.items}
    with cache_lock:
        gone = [cache[n] for n in cache if n not in fresh]
        changed = [e for n, e in fresh.items() if n not in cache or cache[n]["rv"] != e["rv"]]
        added = {n for n in fresh if n not in cache}
        cache.clear()
        cache.update(fresh)
        state["rv"] = rv
    emit({"t": "list", "rv": rv, "n": len(fresh)})
    for e in gone:
        emit({"t": "DELETED", "via": "list", **e})
    for e in changed:
        emit({"t": "ADDED" if e["name"] in added else "MODIFIED", "via": "list", **e})


def run():
    need_list = True
    while True:
        try:
            if need_list:
                relist()
                need_list = False
            emit({"t": "watch", "rv": state["rv"]})
            w = watch.Watch()
            for ev in w.stream(v1.list_namespaced_config_map, namespace,
                               resource_version=state["rv"], allow_watch_bookmarks=True):
                raw = ev["raw_object"]
                meta = raw.get("metadata", {})
                rv = meta.get("resourceVersion", "")
                t = ev["type"]
                with cache_lock:
                    if t in ("ADDED", "MODIFIED"):
                        cache[meta["name"]] = entry(meta["name"], rv, raw.get("data"))
                    elif t == "DELETED":
                        cache.pop(meta["name"], None)
                    state["rv"] = rv
                if t != "BOOKMARK":
                    emit({"t": t, "via": "watch", **entry(meta.get("name"), rv, raw.get("data"))})
        except ApiException as e:
            emit({"t": "error", "code": e.status, "msg": str(e.reason)})
            if e.status == 410:
                need_list = True
            else:
                time.sleep(0.1)
        except Exception as e:  # the connection broke (urllib3 ProtocolError, connection reset, ...)
            emit({"t": "error", "code": None, "msg": "%s: %s" % (type(e).__name__, e)})
            time.sleep(0.1)


def commands():
    for line in sys.stdin:
        if line.strip() == "dump":
            with cache_lock:
                items = list(cache.values())
                rv = state["rv"]
            emit({"t": "dump", "rv": rv, "items": items})
    # stdin closed: stop (the watch thread is a daemon).
    sys.stdout.flush()
    import os
    os._exit(0)


threading.Thread(target=run, daemon=True).start()
commands()
