const f = [...Deno.readDirSync("/tmp/cpuprof")].map(d=>d.name).sort().at(-1)!;
const p = JSON.parse(Deno.readTextFileSync("/tmp/cpuprof/"+f));
const self = new Map<number, number>();
const dt = p.timeDeltas as number[]; const samples = p.samples as number[];
for (let i=0;i<samples.length;i++) self.set(samples[i], (self.get(samples[i])??0) + (dt[i]??0));
const byName = new Map<string, number>();
for (const n of p.nodes) { const k = `${n.callFrame.functionName||"(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; byName.set(k,(byName.get(k)??0)+(self.get(n.id)??0)); }
console.log([...byName].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,v])=>`${(v/1000).toFixed(1)}ms ${k}`).join("\n"));
