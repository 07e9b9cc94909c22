"""Reconstructs a `terraform providers schema -json` file from a Pulumi schema golden of the Go
implementation (pulumi-terraform-bridge `dynamic/testdata/TestSchemaGeneration/...`), and lists
the golden's leaves as sorted `path = value` lines for the comparison tests.

Usage: reconstruct_from_golden.py GOLDEN OUT_TF_JSON OUT_FACTS SOURCE_ADDRESS RESOURCE_PREFIX

The reconstruction is heuristic: Terraform names are the snake_case of the Pulumi names (a
trailing `s` dropped for arrays, so pluralization restores it); flags come from `required`,
`requiredInputs` and the Node.js overrides; an input `$ref` is a block (MaxItems=1 when not an
array) unless it is optional and computed, which only a nested attribute can be. The renamed
`id` is the last of the leading present fixup candidates. Known limits (seen on databricks
1.50.0): a renamed `Provider` resource and a list next to a same-named singular attribute.
"""
import json,re,sys
golden, out_tf, out_facts, address, prefix = sys.argv[1:6]
d=json.load(open(golden))
span=re.compile(r'<span pulumi-lang-nodejs="[^"]*" pulumi-lang-dotnet="[^"]*" pulumi-lang-go="[^"]*" pulumi-lang-python="[^"]*" pulumi-lang-yaml="[^"]*" pulumi-lang-java="[^"]*" pulumi-lang-hcl="([^"]*)">[^<]*</span>')
def unspan(t): return span.sub(lambda m:m.group(1), t)
def snake(n): return re.sub(r'([A-Z])', lambda m:'_'+m.group(1).lower(), n)
def camel(n):
    out=[];cap=False
    for c in n:
        if c=='_': cap=True; continue
        out.append(c.upper() if cap and c.islower() else c); cap=False
    return ''.join(out)
SIBLINGS=set()
def tfname(p, is_array):
    if is_array and p.endswith('s') and p[:-1] not in SIBLINGS: return snake(p[:-1])
    return snake(p)
def ref_tok(ref): return ref.split('#/types/')[1]
def ref_type(ref): return d['types'][ref_tok(ref)]
def cty(p):
    if '$ref' in p:
        if p['$ref']=='pulumi.json#/Any': return 'dynamic'
        t=ref_type(p['$ref'])
        return ['object',{tfname(k, v.get('type')=='array'):cty(v) for k,v in t.get('properties',{}).items()}]
    t=p['type']
    if t=='string': return 'string'
    if t=='number': return 'number'
    if t=='boolean': return 'bool'
    if t=='array': return ['list', cty(p['items'])]
    if t=='object': return ['map', cty(p.get('additionalProperties',{'type':'string'}))]
    raise Exception(p)
def desc(a, p, nested):
    t=p.get('description')
    if t:
        t=unspan(t)
        if nested and t.endswith('\n'): t=t[:-1]
        a['description']=t; a['description_kind']='markdown'
    if p.get('deprecationMessage'):
        a['deprecated']=True
        if p['deprecationMessage']!='Deprecated': a['deprecation_message']=p['deprecationMessage']
def block_from_type(tok):
    t=d['types'][tok]
    lang=t.get('language',{}).get('nodejs',{})
    req=set(t.get('required',[]))
    if tok.split(':')[-1].startswith('get'):
        in_req=set(lang['requiredInputs']) if 'requiredInputs' in lang else req
        out_req=req
    else:
        in_req=req
        out_req=set(lang['requiredOutputs']) if 'requiredOutputs' in lang else req
    attrs={};blocks={}
    for k,p in t.get('properties',{}).items():
        is_arr=p.get('type')=='array'
        name=tfname(k,is_arr)
        inner=p['items'] if is_arr else p
        if '$ref' in inner and inner['$ref'].startswith('#/types'):
            nb={"nesting_mode":"list","block":block_from_type(ref_tok(inner['$ref']))}
            if not is_arr: nb['max_items']=1
            if k in in_req: nb['min_items']=1
            desc(nb['block'],p,True)
            blocks[name]=nb
        else:
            a={"type":cty(p)}
            if k in in_req: a['required']=True
            elif k in out_req: a['optional']=True; a['computed']=True
            else: a['optional']=True
            if p.get('secret'): a['sensitive']=True
            desc(a,p,True)
            attrs[name]=a
    b={"attributes":attrs}
    if blocks: b['block_types']=blocks
    return b
def as_nested_attrs(b):
    attrs=dict(b['attributes'])
    for name,nb in b.get('block_types',{}).items():
        a={"nested_type":{"nesting_mode":"single" if nb.get('max_items')==1 else "list","attributes":as_nested_attrs(nb['block'])}}
        if nb.get('min_items'): a['required']=True
        else: a['optional']=True
        if 'description' in nb['block']: a['description']=nb['block']['description']; a['description_kind']='markdown'
        attrs[name]=a
    return attrs
def member(outs, ins, req_out, req_in, id_prop=None, nested=False):
    global SIBLINGS
    SIBLINGS=set(outs)
    attrs={};blocks={}
    for k,p in outs.items():
        is_arr=p.get('type')=='array'
        name='id' if k==id_prop else tfname(k,is_arr)
        inner=p['items'] if is_arr else p
        is_input=k in ins
        if is_input and '$ref' in inner and inner['$ref'].startswith('#/types'):
            if k in req_out and k not in req_in:
                # Optional and computed: only a (protocol 6) nested attribute can be that.
                a={"nested_type":{"nesting_mode":"list" if is_arr else "single","attributes":as_nested_attrs(block_from_type(ref_tok(inner['$ref'])))},"optional":True,"computed":True}
                desc(a,p,False)
                attrs[name]=a; continue
            nb={"nesting_mode":"list","block":block_from_type(ref_tok(inner['$ref']))}
            if not is_arr: nb['max_items']=1
            if k in req_in: nb['min_items']=1
            desc(nb['block'],p,False)
            blocks[name]=nb; continue
        a={"type":cty(p)}
        if k in req_in: a['required']=True
        elif is_input:
            a['optional']=True
            if k in req_out: a['computed']=True
        else: a['computed']=True
        if p.get('secret'): a['sensitive']=True
        desc(a,p,False)
        attrs[name]=a
    b={"attributes":attrs}
    if blocks: b['block_types']=blocks
    return b
resources={}
for tok,r in d['resources'].items():
    cls=tok.split(':')[-1]; short=snake(cls[0].lower()+cls[1:])
    cands=[camel(short+'_id'), camel(prefix+'_'+short+'_id'), 'resourceId', camel(prefix+'_id')]
    k=0
    while k<len(cands) and cands[k] in r.get('properties',{}): k+=1
    idp=cands[k-1] if k>0 else None
    resources[prefix+'_'+short]={"version":0,"block":member(r.get('properties',{}), r.get('inputProperties',{}), set(r.get('required',[])), set(r.get('requiredInputs',[])), idp)}
dss={}
for tok,f in d['functions'].items():
    if tok.startswith('pulumi:'): continue
    fn=tok.split(':')[-1]; short=snake(fn[3].lower()+fn[4:])
    outs=f.get('outputs',{}).get('properties',{}); ins=f.get('inputs',{}).get('properties',{})
    dss[prefix+'_'+short]={"version":0,"block":member(outs, ins, set(f.get('outputs',{}).get('required',[])), set(f.get('inputs',{}).get('required',[])))}
prov=member(d['config'].get('variables',{}), d['provider'].get('inputProperties',{}), set(d['config'].get('defaults',[])), set(d['provider'].get('requiredInputs',[]) or []))
out={"format_version":"1.0","provider_schemas":{address:{"provider":{"version":0,"block":prov},"resource_schemas":resources,"data_source_schemas":dss}}}
open(out_tf,'w').write(json.dumps(out,indent=1,sort_keys=True)+"\n")
def flat(v, path, out):
    if isinstance(v, dict):
        if not v: out.append(path+' = {}')
        for k in v: flat(v[k], path+'/'+k.replace('/','~1'), out)
    elif isinstance(v, list):
        if not v: out.append(path+' = []')
        for i,x in enumerate(v): flat(x, path+'/'+str(i), out)
    else: out.append(path+' = '+json.dumps(v, ensure_ascii=False))
g=dict(d); g['parameterization']=dict(d['parameterization']); g['parameterization']['baseProvider']={'name':'terraform-provider','version':'<plugin>'}
lines=[]; flat(g,'',lines); lines.sort()
open(out_facts,'w').write('\n'.join(lines)+'\n')
print(len(lines), len(resources), len(dss))
