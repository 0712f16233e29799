/* SPDX-License-Identifier: MIT */
/*
 * replay_profile HTML report (`tessera profile --html DIR`,
 * docs/profiling.md): one self-contained page. The page carries the
 * profile's JSON ("tessera-profile/1", the same bytes as --json apart from
 * '<' escaped) and renders it with an inline script, so every number the
 * page shows is the JSON's by construction and the page needs no network.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/replay_profile.h"

static bool
html_fail(char *err, size_t len, const char *fmt, ...)
{
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(err, len, fmt, ap);
   va_end(ap);
   return false;
}

/* mkdir -p: each component, existing directories are fine. */
static bool
html_mkdir_p(const char *dir, char *err, size_t len)
{
   char path[4096];
   if (!*dir || strlen(dir) >= sizeof(path))
      return html_fail(err, len, "bad directory name '%.160s'", dir);
   strcpy(path, dir);
   for (char *s = path + 1;; s++) {
      if (*s == '/' || !*s) {
         char saved = *s;
         *s = 0;
         struct stat st;
         if (mkdir(path, 0777) != 0 && !(errno == EEXIST && stat(path, &st) == 0 &&
                                          S_ISDIR(st.st_mode)))
            return html_fail(err, len, "cannot create directory '%.160s': %s", path,
                             strerror(errno == EEXIST ? ENOTDIR : errno));
         *s = saved;
         if (!saved)
            return true;
      }
   }
}

/* The page's style and script; the data goes between them. */
static const char html_head[] =
   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
   "<title>tessera profile</title>\n<style>\n"
   "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}\n"
   "h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.5em}h3{font-size:1.05em}\n"
   "table{border-collapse:collapse;margin:.5em 0}\n"
   "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;font-variant-numeric:tabular-nums}\n"
   "th{background:#eee}td.l,th.l{text-align:left;white-space:nowrap}tr.tot td{font-weight:bold}\n"
   ".wide{overflow-x:auto}svg text{font:11px system-ui,sans-serif}\n"
   "#err{color:#b00;font-weight:bold}\n"
   "</style></head><body>\n"
   "<h1>tessera profile</h1>\n<p id=\"meta\"></p><p id=\"err\"></p>\n"
   "<h2>Frames</h2>\n<p>Modelled cycles per frame, one colour per pass "
   "(click a bar to pick the frame).</p>\n<div class=\"wide\" id=\"timeline\"></div>\n"
   "<h2>Passes of frame <select id=\"frame\"></select></h2>\n<div id=\"view\"></div>\n"
   "<h2>Most expensive draws and dispatches</h2>\n<div id=\"top\"></div>\n"
   "<script type=\"application/json\" id=\"data\">\n";

static const char html_tail[] =
   "</script>\n<script>\n"
   "'use strict';\n"
   "window.addEventListener('error',function(e){document.body.setAttribute('data-error',String(e.message));"
   "document.getElementById('err').textContent='script error: '+e.message;});\n"
   "const D=JSON.parse(document.getElementById('data').textContent);\n"
   "const NS='http://www.w3.org/2000/svg';\n"
   "const COL=['#4e79a7','#f28e2b','#e15759','#76b7b2','#59a14f','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];\n"
   "function el(t,a,txt){const e=document.createElement(t);for(const k in a||{})e.setAttribute(k,a[k]);"
   "if(txt!==undefined)e.textContent=txt;return e;}\n"
   "function sv(t,a,txt){const e=document.createElementNS(NS,t);for(const k in a||{})e.setAttribute(k,a[k]);"
   "if(txt!==undefined)e.textContent=txt;return e;}\n"
   "function us(c){return (c*1e6/D.meta.clock_hz).toFixed(1);}\n"
   "const meta=document.getElementById('meta');\n"
   "meta.textContent=D.meta.trace+': '+D.frames.length+' frame'+(D.frames.length==1?'':'s')+"
   "', modelled GPU cycles at '+(D.meta.clock_hz/1e9).toFixed(3)+' GHz (device: '+D.meta.device+')'+"
   "'; measured: the trace\\'s per-pass timestamps, stamped by '+(D.meta.measured_source=='model'?"
   "'the model\\'s firmware (captured on the GPU model)':D.meta.measured_source=='hardware'?"
   "'the real GPU\\'s firmware (captured on hardware)':'an unknown machine');\n"
   "function meas(x){return x===null||x===undefined?'not recorded':(x/1e3).toFixed(1)+' us';}\n"
   /* the timeline: a bar per frame, stacked per pass */
   "(function(){const W=Math.max(400,D.frames.length*36+60),H=220,B=190;\n"
   "let mx=1;for(const f of D.frames)mx=Math.max(mx,f.cycles);\n"
   "const s=sv('svg',{width:W,height:H,id:'timeline-svg'});\n"
   "s.appendChild(sv('text',{x:4,y:12},mx+' cycles'));\n"
   "s.appendChild(sv('line',{x1:50,y1:B,x2:W,y2:B,stroke:'#888'}));\n"
   "D.frames.forEach(function(f,fi){const x=56+fi*36;let y=B;\n"
   "const g=sv('g',{'class':'tl-frame','data-frame':f.frame,'data-cycles':f.cycles,style:'cursor:pointer'});\n"
   "f.passes.forEach(function(p,k){const h=p.cycles/mx*(B-20);y-=h;\n"
   "const r=sv('rect',{x:x,y:y,width:28,height:Math.max(h,0),fill:COL[k%COL.length],"
   "'data-pass':p.index,'data-cycles':p.cycles});\n"
   "r.appendChild(sv('title',{},'frame '+f.frame+' pass '+p.index+' ('+p.kind+'): '+p.cycles+' cycles'));g.appendChild(r);});\n"
   "g.appendChild(sv('text',{x:x+14,y:B+14,'text-anchor':'middle'},String(f.frame)));\n"
   "g.addEventListener('click',function(){pick(fi);});s.appendChild(g);});\n"
   "document.getElementById('timeline').appendChild(s);})();\n"
   /* one pass: sorted bars of the entries' cycles, then the counter table */
   "function passView(f,p){const d=el('div',{'class':'pass','data-pass':p.index});\n"
   "const render=p.kind=='render',ents=render?p.draws:p.dispatches,what=render?'draw':'dispatch';\n"
   "d.appendChild(el('h3',{},'pass '+p.index+': '+p.kind+(render?' '+p.width+'x'+p.height+' '+p.samples+'x':'')+"
   "', submission '+p.submission+', '+ents.length+' '+what+(ents.length==1?'':(render?'s':'es'))+', '+p.cycles+' cycles ('+us(p.cycles)+' us)'));\n"
   "d.appendChild(el('p',{'class':'measured','data-measured-ns':p.measured_ns===null?'':String(p.measured_ns)},"
   "'modelled '+us(p.cycles)+' us; measured '+meas(p.measured_ns)+(p.measured_span?' ('+p.measured_span+')':'')+"
   "(render&&p.measured_vertex_ns!==null?', vertex '+meas(p.measured_vertex_ns):'')+"
   "(render&&p.measured_fragment_ns!==null?', fragment '+meas(p.measured_fragment_ns):'')));\n"
   "const rows=ents.map(function(e){return{label:what+' '+e.index,key:String(e.index),c:e.counters.cycles};});\n"
   "rows.push({label:'overhead',key:'overhead',c:p.overhead.counters.cycles});\n"
   "rows.sort(function(a,b){return b.c-a.c;});\n"
   "const BW=500,RH=18,mx=Math.max(1,rows.length?rows[0].c:1);\n"
   "const s=sv('svg',{width:BW+260,height:rows.length*RH+4,'class':'bars'});\n"
   "rows.forEach(function(r,i){const y=2+i*RH;\n"
   "s.appendChild(sv('text',{x:0,y:y+13},r.label));\n"
   "s.appendChild(sv('rect',{x:90,y:y+2,width:r.c/mx*BW,height:RH-4,fill:r.key=='overhead'?'#bbb':'#4e79a7',"
   "'data-entry':r.key,'data-cycles':r.c}));\n"
   "s.appendChild(sv('text',{x:96+r.c/mx*BW,y:y+13,'class':'bar-value','data-entry':r.key},String(r.c)));});\n"
   "d.appendChild(s);\n"
   "const names=D.meta.counters.filter(function(n){if(render)return !['threadgroups','invocations','cs_instructions'].includes(n);"
   "return ['cycles','threadgroups','invocations','cs_instructions','tex_fetches'].includes(n);});\n"
   "const t=el('table',{'class':'counters'}),hr=el('tr');hr.appendChild(el('th',{'class':'l'},what));\n"
   "hr.appendChild(el('th',{'class':'l'},render?'vs / fs':'kernel'));\n"
   "for(const n of names)hr.appendChild(el('th',{},n));if(render)hr.appendChild(el('th',{'class':'l'},'texture formats'));t.appendChild(hr);\n"
   "function fmts(e){return e&&e.tex_formats?Object.keys(e.tex_formats).map(function(k){return k+' '+e.tex_formats[k];}).join(', '):'';}\n"
   "function row(label,key,e,cls){const tr=el('tr',{'data-entry':key});if(cls)tr.className=cls;\n"
   "tr.appendChild(el('td',{'class':'l'},label));\n"
   "tr.appendChild(el('td',{'class':'l'},e?(render?e.vs+' / '+e.fs:e.kernel):''));\n"
   "for(const n of names)tr.appendChild(el('td',{'data-counter':n},String(key=='total'?p.counters[n]:e.counters[n])));\n"
   "if(render)tr.appendChild(el('td',{'class':'l','data-k':'tex_formats'},fmts(e)));\n"
   "t.appendChild(tr);}\n"
   "for(const e of ents)row(String(e.index),String(e.index),e);\n"
   "row('overhead','overhead',p.overhead);row('pass','total',null,'tot');\n"
   "const w=el('div',{'class':'wide'});w.appendChild(t);d.appendChild(w);return d;}\n"
   /* the frame picker */
   "const sel=document.getElementById('frame');\n"
   "D.frames.forEach(function(f,fi){sel.appendChild(el('option',{value:String(fi)},String(f.frame)));});\n"
   "function show(fi){const v=document.getElementById('view');v.textContent='';const f=D.frames[fi];\n"
   "if(!f){v.textContent='no frames';return;}\n"
   "v.setAttribute('data-frame',f.frame);\n"
   "v.appendChild(el('p',{'class':'frame-sum'},'frame '+f.frame+': '+f.submissions+' submission'+(f.submissions==1?'':'s')+', '+"
   "f.passes.length+' pass'+(f.passes.length==1?'':'es')+', '+f.cycles+' cycles ('+us(f.cycles)+' us), timestamps '+(f.gpu_ns/1e3).toFixed(1)+' us, measured '+meas(f.measured_ns)+"
   "(f.measured_ns!==null?' ('+f.measured_passes+' of '+f.passes.length+' passes recorded)':'')));\n"
   "for(const p of f.passes)v.appendChild(passView(f,p));}\n"
   "function pick(fi){sel.value=String(fi);sel.dispatchEvent(new Event('change'));}\n"
   "sel.addEventListener('change',function(){show(Number(sel.value));});\n"
   /* the top list */
   "(function(){const t=el('table',{id:'top-table'}),hr=el('tr');\n"
   "for(const h of ['#','frame','pass','draw / dispatch','cycles','us','vs / kernel','fs'])hr.appendChild(el('th',{},h));t.appendChild(hr);\n"
   "D.top.forEach(function(e,i){const tr=el('tr',{'data-rank':i});\n"
   "const ent=e.draw!==undefined?e.draw:e.dispatch;\n"
   "for(const [k,v] of [['rank',i+1],['frame',e.frame],['pass',e.pass],['entry',(e.draw!==undefined?'draw ':'dispatch ')+ent],"
   "['cycles',e.cycles],['us',us(e.cycles)],['vs',e.vs],['fs',e.fs]])tr.appendChild(el('td',{'data-k':k},String(v)));\n"
   "t.appendChild(tr);});document.getElementById('top').appendChild(t);})();\n"
   /* #frame=I (an index into the frames) picks a frame through the picker */
   "const m=/^#frame=(\\d+)$/.exec(location.hash);\n"
   "if(m&&Number(m[1])<D.frames.length)pick(Number(m[1]));else show(0);\n"
   "document.body.setAttribute('data-ready','1');\n"
   "</script>\n</body></html>\n";

bool
replay_profile_write_html(const char *dir, const struct replay_profile *p, unsigned top,
                          char *err, size_t errlen)
{
   if (!html_mkdir_p(dir, err, errlen))
      return false;
   char *json = NULL;
   size_t jlen = 0;
   FILE *m = open_memstream(&json, &jlen);
   if (!m)
      return html_fail(err, errlen, "out of memory");
   replay_profile_print_json(m, p, top);
   if (fclose(m) != 0) {
      free(json);
      return html_fail(err, errlen, "out of memory");
   }
   char path[4200];
   snprintf(path, sizeof(path), "%s/index.html", dir);
   FILE *f = fopen(path, "w");
   if (!f) {
      free(json);
      return html_fail(err, errlen, "cannot create '%.160s': %s", path, strerror(errno));
   }
   fputs(html_head, f);
   /* '<' only occurs inside JSON strings (the trace's name), where \u003c
    * means the same; so "</script>" cannot end the data block early. */
   for (size_t i = 0; i < jlen; i++) {
      if (json[i] == '<')
         fputs("\\u003c", f);
      else
         fputc(json[i], f);
   }
   free(json);
   fputs(html_tail, f);
   if (ferror(f) | (fclose(f) != 0))
      return html_fail(err, errlen, "cannot write '%.160s'", path);
   return true;
}
