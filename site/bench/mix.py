# The request mix of site/bench/serve.sh and serve-ab.sh: each channel ×
# arch with every version (per-version files), without a version and with
# an unknown one (channel files), shuffled from a fixed seed.
#   python3 site/bench/mix.py TREE/index.json URLS > paths.txt
import json, random, sys
m = json.load(open(sys.argv[1]))
paths = []
for g in m["graphs"]:
    q = f"/api/upgrades_info/v1/graph?arch={g['arch']}&channel={g['channel']}&id=0f0e0d0c-0b0a-0908-0706-050403020100"
    paths.append(q)
    paths.append(q + "&version=9.9.9")
    paths += [q + "&version=" + v for v in g["versions"]]
random.seed(1)
random.shuffle(paths)
print("\n".join(paths[: int(sys.argv[2])]))
