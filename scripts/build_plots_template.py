"""Build reports/plots_template.html: the page `dvc plots show` fills (.dvc/config plots.html_template),
with vega, vega-lite and vega-embed inlined so the page renders from file:// with no network.

DVC's own page loads the three libraries from a CDN and is blank offline. This template has no
`{scripts}` placeholder, so DVC adds none of its CDN tags; the libraries come from npm tarballs:

    python scripts/build_plots_template.py            # npm pack of the PACKAGES below (make setup runs it)
    python scripts/build_plots_template.py --from DIR  # tarballs already in DIR (vega-5.33.1.tgz, ...)

Each library keeps its license (BSD-3-Clause) as a comment above its code. Re-run only to change
versions; the output is the same bytes for the same tarballs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "reports" / "plots_template.html"
# (npm spec, bundle inside the tarball): exact versions, so the page is the same bytes on every build, of
# the majors DVC's own page uses (dvc_render/vega.py SCRIPTS).
PACKAGES = [
    ("vega@5.33.1", "package/build/vega.min.js"),
    ("vega-lite@5.23.0", "package/build/vega-lite.min.js"),
    ("vega-embed@6.29.0", "package/build/vega-embed.min.js"),
]
# vega's tarball ships no LICENSE file; its license (package.json: BSD-3-Clause) is this text.
BSD3_BODY = """All rights reserved.

Redistribution and use in source and binary forms, with or without modification, are permitted provided
that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this list of conditions and
   the following disclaimer.
2. Redistributions in binary form must reproduce the above copyright notice, this list of conditions and
   the following disclaimer in the documentation and/or other materials provided with the distribution.
3. Neither the name of the copyright holder nor the names of its contributors may be used to endorse or
   promote products derived from this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED
WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A
PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR
ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED
TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE."""

PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
{{refresh_tag}}
<title>DVC Plot</title>
<!-- Offline page for `dvc plots show` (.dvc/config plots.html_template), built by
     scripts/build_plots_template.py: {versions} inlined, no CDN. -->
{libraries}
<script>
// DVC calls vegaEmbed(el, spec) with no options: draw SVG (crisp, and its marks are in the DOM, which
// scripts/check_plots_offline.py looks for) instead of the default canvas.
window.vegaEmbed = (function (embed) {{
    var svgEmbed = function (el, spec, opt) {{ return embed(el, spec, Object.assign({{renderer: "svg"}}, opt)); }};
    return Object.assign(svgEmbed, embed);
}})(window.vegaEmbed);
</script>
<style>
    body {{ font-family: sans-serif; }}
    table {{ border-spacing: 15px; }}
</style>
</head>
<body>
{{plot_divs}}
</body>
</html>
"""


def _license(tar: tarfile.TarFile, meta: dict) -> str:
    try:
        member = tar.extractfile("package/LICENSE")
    except KeyError:
        member = None
    if member is not None:
        return member.read().decode("utf-8").strip()
    author = meta.get("author")
    holder = author.get("name") if isinstance(author, dict) else str(author or meta["name"] + " authors")
    holder = holder.split(" (")[0]
    return f"Copyright (c) 2015, {holder}.\n{BSD3_BODY}"


def _script(tgz: Path, bundle: str) -> tuple[str, str]:
    with tarfile.open(tgz) as tar:
        meta = json.loads(tar.extractfile("package/package.json").read())
        code = tar.extractfile(bundle).read().decode("utf-8").strip()
        # The source map is not shipped; a browser's devtools would ask the network for it.
        code = "\n".join(line for line in code.splitlines() if not line.startswith("//# sourceMappingURL="))
        notice = _license(tar, meta)
    name = f"{meta['name']}@{meta['version']}"
    for marker in ("</script", "{plot_divs}", "{scripts}", "{refresh_tag}"):
        if marker in code:  # would end the tag early, or be filled in by DVC
            raise SystemExit(f"{name}: the bundle holds {marker!r}; it cannot be inlined as it is")
    header = f"/*! {name} ({meta.get('license')}) {bundle.removeprefix('package/')}\n{notice}\n*/"
    return name, f"<script>\n{header}\n{code}\n</script>"


def _tarballs(source: Path | None, work: Path) -> list[Path]:
    if source is None:
        specs = [spec for spec, _ in PACKAGES]
        subprocess.run(["npm", "pack", "--silent", *specs], cwd=work, check=True, stdout=subprocess.DEVNULL)
        source = work
    found = []
    for spec, _ in PACKAGES:
        name, version = spec.split("@")
        tgz = source / f"{name}-{version}.tgz"
        if not tgz.is_file():
            raise SystemExit(f"no {tgz.name} in {source}")
        found.append(tgz)
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, help="folder holding the npm tarballs")
    parser.add_argument("--out", type=Path, default=TEMPLATE)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vega-") as work:
        scripts = [_script(tgz, bundle) for tgz, (_, bundle) in zip(_tarballs(args.source, Path(work)), PACKAGES, strict=True)]
    page = PAGE.format(versions=", ".join(name for name, _ in scripts),
                       libraries="\n".join(script for _, script in scripts))
    args.out.write_text(page, encoding="utf-8")
    print(f"{args.out}: {', '.join(name for name, _ in scripts)} ({len(page) // 1024} KiB)", file=sys.stderr)


if __name__ == "__main__":
    main()
