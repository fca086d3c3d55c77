// The console's stylesheet, kept as a TypeScript string so `tsc` ships it in dist/ (no copy step)
// and served from /ui/static/console.css (the CSP allows styles from our own origin only).

export const CONSOLE_CSS = `
:root { --ink:#1d2433; --muted:#5b6478; --line:#dfe3ea; --bg:#f5f6f9; --card:#fff; --accent:#2f5bd3;
  --ok:#17804a; --okbg:#e3f5ea; --bad:#b42318; --badbg:#fde7e5; --warn:#8a5a00; --warnbg:#fff3d6;
  --add:#17804a; --del:#b42318; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color:var(--ink); background:var(--bg); }
a { color:var(--accent); text-decoration:none; } a:hover { text-decoration:underline; }
header.top { background:#1d2433; color:#fff; display:flex; align-items:center; gap:28px; padding:0 24px; height:52px; }
header.top .brand { font-weight:700; letter-spacing:.3px; font-size:16px; }
header.top .brand small { font-weight:400; color:#aab3c5; margin-left:6px; }
header.top nav a { color:#cfd6e4; padding:16px 10px; display:inline-block; border-bottom:3px solid transparent; }
header.top nav a.on { color:#fff; border-bottom-color:#6d92ff; }
header.top form { margin-left:auto; }
header.top input[type=search] { background:#2b3448; border:1px solid #3c465e; color:#fff; border-radius:6px; padding:6px 10px; width:220px; }
main { max-width:1240px; margin:0 auto; padding:22px 24px 60px; }
h1 { font-size:22px; margin:0 0 4px; overflow-wrap:anywhere; } h2 { font-size:16px; margin:0 0 12px; } h3 { font-size:14px; margin:14px 0 8px; }
.sub { color:var(--muted); margin:0 0 18px; overflow-wrap:anywhere; }
.crumbs { color:var(--muted); margin-bottom:8px; overflow-wrap:anywhere; } .crumbs a { color:var(--muted); }
.grid { display:grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap:14px; margin-bottom:18px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:16px 18px; margin-bottom:18px; overflow:hidden; }
.grid .card { margin-bottom:0; }
.stat .label { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.5px; }
.stat .value { font-size:22px; font-weight:650; margin-top:4px; overflow-wrap:anywhere; }
.stat .note { color:var(--muted); font-size:12px; margin-top:2px; }
.pill { display:inline-block; padding:1px 9px; border-radius:999px; font-size:12px; font-weight:600; background:#eef0f4; color:var(--muted); white-space:nowrap; }
.pill.ok { background:var(--okbg); color:var(--ok); } .pill.bad { background:var(--badbg); color:var(--bad); } .pill.warn { background:var(--warnbg); color:var(--warn); }
.pill.info { background:#e6ecfb; color:var(--accent); }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); font-weight:600; text-transform:uppercase; letter-spacing:.4px; background:#fafbfc; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
td .cell { max-width:340px; min-width:60px; }
.scroll { overflow-x:auto; }
.muted { color:var(--muted); } .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size:12.5px; }
.text { overflow-wrap:break-word; white-space:pre-wrap; unicode-bidi:plaintext; }
h1.text { overflow-wrap:anywhere; }
th.field { width:28%; }
.login input[type=password] { width:100%; max-width:none; }
.added { color:var(--add); } .removed { color:var(--del); }
.before { background:var(--badbg); color:var(--bad); padding:0 4px; border-radius:4px; overflow-wrap:anywhere; }
.after { background:var(--okbg); color:var(--ok); padding:0 4px; border-radius:4px; overflow-wrap:anywhere; }
.pager { display:flex; gap:10px; align-items:center; margin-top:12px; }
.pager a, .pager span.cur { border:1px solid var(--line); border-radius:6px; padding:4px 10px; background:#fff; }
form.inline { display:flex; gap:10px; flex-wrap:wrap; align-items:flex-end; }
form.inline label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); gap:4px; }
select, input[type=text], input[type=password], input[type=number] { font:inherit; padding:6px 8px; border:1px solid var(--line); border-radius:6px; background:#fff; max-width:380px; }
button { font:inherit; background:var(--accent); color:#fff; border:0; border-radius:6px; padding:7px 14px; cursor:pointer; }
pre.command { background:#1d2433; color:#e8ecf5; padding:14px 16px; border-radius:8px; overflow-x:auto; font-size:13px; white-space:pre-wrap; overflow-wrap:anywhere; }
.notice { border-left:4px solid var(--warn); background:var(--warnbg); padding:10px 14px; border-radius:6px; margin-bottom:14px; }
.notice.bad { border-color:var(--bad); background:var(--badbg); }
.thread { border-left:3px solid var(--line); padding-left:12px; margin:8px 0; }
.thread .reply { margin-left:22px; }
.amend { background:#fafbfc; border:1px solid var(--line); border-radius:8px; padding:8px 12px; margin:6px 0; }
.chart svg { width:100%; height:auto; display:block; }
.chart .bar { fill:#6d92ff; } .chart .bar.failed { fill:#e06c5f; } .chart .line { fill:none; stroke:#17804a; stroke-width:2; }
.chart .axis { stroke:#c9ceda; stroke-width:1; } .chart text { fill:#5b6478; font-size:11px; font-family:system-ui, sans-serif; }
.chart .dot { fill:#17804a; }
.legend { display:flex; gap:16px; color:var(--muted); font-size:12px; margin-top:6px; }
.legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:5px; vertical-align:-1px; }
.legend .b { background:#6d92ff; } .legend .f { background:#e06c5f; } .legend .l { background:#17804a; }
.two { display:grid; grid-template-columns: 1fr 1fr; gap:14px; } @media (max-width: 900px) { .two { grid-template-columns: 1fr; } }
.login { max-width:420px; margin:60px auto; }
/* every string people typed sits in its own bidi isolate: a right-to-left name never reorders the text around it */
a, b, td, .pill, .mono, .before, .after, option { unicode-bidi:isolate; }
form.signout { margin-left:auto; } form.signout button { background:transparent; border:1px solid #56607a; padding:4px 10px; }
`;
