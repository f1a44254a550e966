/**
 * The part of the one stylesheet (layout.ts) that the console and the account page use: a
 * wide card, the navigation, tables, the figures of the overview and the charts' colours
 * (each series a class; light and dark schemes each with colours of at least 3:1 against
 * the card, WCAG 2.1 SC 1.4.11). No inline style anywhere: the CSP allows this sheet alone.
 */
export const CONSOLE_STYLE = `
:root{--c0:#1d4ed8;--c1:#b45309;--c2:#047857;--c3:#be185d;--c4:#6d28d9;--c5:#0e7490;--c6:#475569}
@media (prefers-color-scheme:dark){:root{--c0:#60a5fa;--c1:#fbbf24;--c2:#34d399;--c3:#f472b6;--c4:#a78bfa;--c5:#22d3ee;--c6:#cbd5e1}}
main.wide{max-width:68rem}
.console-bar{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.5rem 1rem;border-bottom:1px solid var(--line);padding-bottom:.75rem;margin-bottom:1rem}
.console-bar p{margin:0}
.nav{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;list-style:none;margin:0;padding:0}
.nav li{margin:0}
.nav a{display:inline-block;text-decoration:none;padding:.25rem 0;border-bottom:3px solid transparent}
.nav a[aria-current=page]{border-bottom-color:var(--brand);font-weight:600}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:0 0 .25rem}
.table{overflow-x:auto;margin-top:1rem}
table{border-collapse:collapse;width:100%;font-size:.925rem}
.table table{min-width:44rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600}
td code,dd code,p code{overflow-wrap:anywhere}
td.number,th.number{text-align:right}
dl.stats{grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.75rem}
dl.stats div{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem}
dl.stats dd{font-size:1.6rem;font-weight:700}
dl.stats dd span{display:block;font-size:.85rem;font-weight:400;color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1.25rem}
figure{margin:0}
.chart svg{display:block;width:100%;height:auto}
.chart .axis{stroke:var(--field);stroke-width:1}
.chart text{fill:var(--muted);font-size:11px}
.s0{fill:var(--c0);background:var(--c0)}.s1{fill:var(--c1);background:var(--c1)}.s2{fill:var(--c2);background:var(--c2)}
.s3{fill:var(--c3);background:var(--c3)}.s4{fill:var(--c4);background:var(--c4)}.s5{fill:var(--c5);background:var(--c5)}.s6{fill:var(--c6);background:var(--c6)}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;padding:0;margin:.5rem 0}
.legend li{margin:0}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.35rem;vertical-align:-.05rem}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.filter{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end}
.filter>div{flex:1;min-width:12rem}
.filter label{margin:0 0 .25rem}
.filter .actions{margin-top:0}
button.small{flex:none;padding:.35rem .8rem;font-size:.925rem}
button.danger{border-color:var(--danger);color:var(--danger)}
.apps{list-style:none;padding:0}
.apps>li{border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:.75rem 0}
.pager{display:flex;gap:1rem;margin-top:1rem}
details{margin:.5rem 0}
summary{cursor:pointer}
textarea,select{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--field);border-radius:8px;background:var(--card);color:inherit}
textarea{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
input[readonly]{border-style:dashed}
fieldset.choices{border:0;margin:1rem 0 0;padding:0}
fieldset.choices legend{font-weight:600;padding:0;margin-bottom:.25rem}
fieldset.choices label{display:flex;align-items:center;gap:.5rem;font-weight:400;margin:.2rem 0}
.field p.muted{margin:.25rem 0 0}
.field-error{color:var(--danger);margin:.25rem 0 0}
[aria-invalid=true]{border-color:var(--danger);border-width:2px}
.copy{display:flex;align-items:center;gap:.75rem}
dl.terms{grid-template-columns:minmax(0,14rem) minmax(0,1fr)}
@media (max-width:40rem){dl.terms{grid-template-columns:minmax(0,1fr)}dl.terms dd{margin-bottom:.4rem}}
/* The forms of users, identity providers and workload trusts (src/pages/console/identity-fields.ts). */
.field{margin:1rem 0}
.field label{margin:0 0 .25rem}
.field .hint{margin:0 0 .35rem}
.field input[type=email],.field input[type=url],.field textarea,.field select{width:100%;font:inherit;padding:.6rem .7rem;border:1px solid var(--field);border-radius:8px;background:transparent;color:inherit}
.field select option{background:var(--card);color:var(--fg)}
.field textarea,input.code-field{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
.field.check{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem .5rem}
.field.check input{width:1.1rem;height:1.1rem;margin:0}
.field.check label{margin:0;font-weight:400}
.field.check .hint,.field.check .field-error{flex-basis:100%}
.field-error{color:var(--danger);font-weight:600;margin:.35rem 0 0}
[aria-invalid=true]{border-color:var(--danger)!important;border-width:2px!important}
a.button{display:inline-block;font-weight:600;padding:.45rem .9rem;border:1px solid var(--field);border-radius:8px;text-decoration:none}
.links{display:flex;flex-wrap:wrap;gap:.5rem}
form.inline{display:inline}
pre{overflow-x:auto;border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem;font-size:.875rem}
`;
