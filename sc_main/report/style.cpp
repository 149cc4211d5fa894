// report.html's CSS, inline in the page's <style>.
#include "sc_main/report/page.h"

namespace gpuvp::report {

const char* const kStyle = R"(
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d1d1f;background:#fff;margin:0}
main{max-width:1280px;margin:0 auto;padding:8px 20px 40px}
h1{font-size:24px;margin:16px 0 10px}
h2{font-size:19px;margin:0 0 8px;padding-top:14px}
h3{font-size:15px;margin:16px 0 6px}
h4{font-size:13px;margin:10px 0 2px}
section{border-top:2px solid #e3e3e8;margin-top:22px}
nav{position:sticky;top:0;background:#f6f6f8;border-bottom:1px solid #ddd;padding:6px 20px;z-index:1;font-size:13px}
nav a{margin-right:14px;color:#2456a4;text-decoration:none}
a{color:#2456a4}
table{border-collapse:collapse;margin:6px 0 10px}
table.facts th{text-align:left;padding:2px 14px 2px 0;color:#555;font-weight:600;vertical-align:top}
table.facts td{padding:2px 0}
table.data{font-size:12.5px}
#stage-table{font-size:12px}
#stage-table th,#stage-table td{padding:3px 6px}
#stage-table tbody th{max-width:300px;overflow-wrap:anywhere}
tr.total td,tr.total th{border-top:2px solid #999}
table.data th,table.data td{border:1px solid #d9d9de;padding:3px 7px;vertical-align:top}
table.data thead th{background:#f1f1f4;font-weight:600}
table.numbers td{text-align:right;font-variant-numeric:tabular-nums}
table.data tbody th{text-align:left;font-weight:600}
tr.group th{background:#f7f7fa;text-align:left;color:#444}
tr.fail td{background:#fff1f0}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-weight:600;font-size:12px}
.badge.ok{background:#e3f5e1;color:#1e6b1a}
.badge.bad{background:#fde2e0;color:#a4201a}
.muted{color:#666}
.warn{color:#a45a00}
.empty{color:#666;font-style:italic;background:#f7f7f9;padding:8px 12px;border-radius:4px}
.note{background:#fff8e6;border-left:3px solid #e0a100;padding:6px 10px}
.variant-note{background:#eef3fb;border-left:3px solid #4e79a7;padding:6px 10px}
.ratio{color:#666;font-size:11px}
.swatch{display:inline-block;width:10px;height:10px;margin-right:5px;vertical-align:baseline}
code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12px}
code.set{font-weight:normal;color:#444}
figure{margin:8px 0 14px}
figcaption{font-weight:600;font-size:13px;margin-bottom:2px}
.row{display:flex;flex-wrap:wrap;gap:16px}
svg{max-width:100%;height:auto;display:block;font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
svg text{fill:#333}
svg .axis line{stroke:#777;stroke-width:1}
svg .axis line.grid{stroke:#e6e6ea}
svg .axis-title,svg .legend-heading{font-weight:600}
svg .axis-line{stroke:#777}
svg .plot-bg{fill:#fafafc;stroke:#e0e0e6}
svg .row-sep{stroke:#ececf0}
svg .limit{stroke:#333;stroke-width:1.5;stroke-dasharray:5 3}
svg text.value{font-size:10px;fill:#555}
svg text.value.inside{fill:#fff}
svg text.muted{fill:#888}
.table-wrap{max-width:100%;overflow-x:auto}
ul.problems{color:#a4201a}
footer{color:#777;font-size:12px;margin-top:30px}
section>details>summary{cursor:pointer;list-style-position:outside}
section>details>summary h2{display:inline-block}
details.sm-detail:not([open]){display:inline-block;margin-right:18px}
details.sm-detail>summary,details.variant-sm>summary{cursor:pointer;font-weight:600;font-size:13px;margin:6px 0 2px}
details.variant-sm>summary h4{display:inline-block;margin:4px 0}
nav button{margin-left:6px;font-size:12px}
.zoom-bar{display:flex;align-items:center;gap:6px;font-size:12px;margin:6px 0 0}
.zoom-bar button{min-width:28px;font-size:12px;padding:1px 6px;cursor:pointer}
.zoom-range{font-variant-numeric:tabular-nums;margin:0 8px 0 4px}
svg.zoomable{cursor:crosshair}
svg .zoom-window{fill:#2456a4;fill-opacity:0.12;stroke:#2456a4;stroke-width:1.5;pointer-events:none}
figure.overview{margin:4px 0 0}
svg .zoom-select{fill:#2456a4;fill-opacity:0.15;stroke:#2456a4;stroke-width:1}
)";

}  // namespace gpuvp::report
