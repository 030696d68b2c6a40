/* Event format files (events/<system>/<event>/format) parsed into field
 * layouts, and the table of formats by id. Each format is one allocation:
 * the struct, its fields, then its names. */
#include "tracedat/td_internal.h"

void td_formats_init(td_formats *t, tread_alloc *a, uint64_t limit)
{
    memset(t, 0, sizeof *t);
    t->alloc = a;
    t->limit = limit;
}

void td_formats_free(td_formats *t)
{
    td_format *f = t->all;
    while (f) {
        td_format *n = f->all;
        tread_free(t->alloc, f);
        f = n;
    }
    tread_free(t->alloc, t->slots);
    memset(t, 0, sizeof *t);
}

const td_format *td_formats_get(const td_formats *t, uint32_t id)
{
    if (!t->nslots)
        return NULL;
    for (const td_format *f = t->slots[id & (t->nslots - 1)]; f; f = f->next)
        if (f->id == id)
            return f;
    return NULL;
}

int td_format_field(const td_format *f, const char *name)
{
    size_t n = strlen(name);
    for (uint32_t i = 0; i < f->nfields; i++)
        if (f->fields[i].name_len == n && memcmp(f->fields[i].name, name, n) == 0)
            return (int)i;
    return -1;
}

static int grow(td_formats *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 256;
    td_format **s = tread_malloc(t->alloc, ns * sizeof *s);
    if (!s)
        return -1;
    memset(s, 0, ns * sizeof *s);
    for (size_t i = 0; i < t->nslots; i++) {
        td_format *f = t->slots[i];
        while (f) {
            td_format *n = f->next;
            f->next = s[f->id & (ns - 1)];
            s[f->id & (ns - 1)] = f;
            f = n;
        }
    }
    tread_free(t->alloc, t->slots);
    t->slots = s;
    t->nslots = ns;
    return 0;
}

/* The line after "key:" when a line starts (after blanks) with key. */
static const char *line_value(const char *s, const char *end, const char *key, const char **eol)
{
    size_t kl = strlen(key);
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        const char *q = s;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(e - q) >= kl && memcmp(q, key, kl) == 0) {
            *eol = e;
            q += kl;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            return q;
        }
        s = e + 1;
    }
    return NULL;
}

/* A decimal after "key:" inside [s, e). */
static int attr(const char *s, const char *e, const char *key, uint64_t *out)
{
    size_t kl = strlen(key);
    for (const char *q = s; q + kl <= e; q++) {
        if (memcmp(q, key, kl) == 0 && (q == s || q[-1] == '\t' || q[-1] == ' ' || q[-1] == ';')) {
            q += kl;
            uint64_t v = 0;
            int digits = 0;
            while (q < e && *q >= '0' && *q <= '9' && digits < 12) {
                v = v * 10 + (uint64_t)(*q++ - '0');
                digits++;
            }
            if (!digits)
                return -1;
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line. */
static int parse_field(const char *s, const char *e, td_field *fl, const char **nm, size_t *nl)
{
    const char *semi = memchr(s, ';', (size_t)(e - s));
    uint64_t off, size, sg = 0;
    if (!semi)
        return -1;
    if (attr(semi, e, "offset:", &off) != 0 || attr(semi, e, "size:", &size) != 0)
        return -1;
    (void)attr(semi, e, "signed:", &sg); /* old kernels have no signed: */
    if (off > UINT32_MAX || size > UINT32_MAX)
        return -1;
    const char *d = s, *de = semi;
    while (de > d && (de[-1] == ' ' || de[-1] == '\t'))
        de--;
    int array = 0;
    if (de > d && de[-1] == ']') {
        const char *lb = de - 1;
        while (lb > d && *lb != '[')
            lb--;
        if (*lb != '[')
            return -1;
        de = lb;
        array = 1;
        while (de > d && (de[-1] == ' ' || de[-1] == '\t'))
            de--;
    }
    const char *ns = de;
    while (ns > d && is_ident(ns[-1]))
        ns--;
    if (ns == de)
        return -1;
    memset(fl, 0, sizeof *fl);
    *nm = ns;
    *nl = (size_t)(de - ns);
    fl->offset = (uint32_t)off;
    fl->size = (uint32_t)size;
    fl->is_signed = sg != 0;
    fl->common = *nl > 7 && memcmp(ns, "common_", 7) == 0;
    int is_char = 0;
    for (const char *q = d; q + 4 <= ns; q++)
        if (memcmp(q, "char", 4) == 0 && (q == d || !is_ident(q[-1])) && !is_ident(q[4]))
            is_char = 1;
    int dyn = (size_t)(ns - d) >= 10 && memcmp(d, "__data_loc", 10) == 0;
    int rel = (size_t)(ns - d) >= 9 && memcmp(d, "__rel_loc", 9) == 0;
    if (dyn || rel) {
        fl->rel = (uint8_t)rel;
        fl->kind = is_char ? TD_F_DYN_STRING : TD_F_DYN_BYTES;
        if (size != 4)
            return -1;
    } else if (array) {
        fl->kind = is_char ? TD_F_STRING : TD_F_BYTES;
    } else if (size == 1 || size == 2 || size == 4 || size == 8) {
        fl->kind = TD_F_INT;
    } else {
        fl->kind = TD_F_BYTES;
    }
    return 0;
}

static int name_is(const td_format *f, const char *sys, const char *name)
{
    return strcmp(f->system, sys) == 0 && strcmp(f->name, name) == 0;
}

/* The field an argument of print fmt names: "REC->name", possibly behind
 * a cast ("(void *)REC->ip"); -1 for anything else. */
static int arg_field(const td_format *f, const char *a, const char *e)
{
    while (a < e && (*a == ' ' || *a == '\t'))
        a++;
    while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    if (a < e && *a == '(') { /* a cast */
        const char *c = memchr(a, ')', (size_t)(e - a));
        if (!c)
            return -1;
        a = c + 1;
        while (a < e && *a == ' ')
            a++;
    }
    if (e - a < 6 || memcmp(a, "REC->", 5) != 0)
        return -1;
    a += 5;
    for (const char *q = a; q < e; q++)
        if (!is_ident(*q))
            return -1;
    for (uint32_t i = 0; i < f->nfields; i++)
        if (f->fields[i].name_len == (size_t)(e - a) && memcmp(f->fields[i].name, a, (size_t)(e - a)) == 0)
            return (int)i;
    return -1;
}

/* print fmt: "...", args: the fields shown with %ps/%pf (name) or %pS/%pF
 * (name+offset) get sym set, as trace-cmd report resolves them. */
static void print_fmt_syms(td_format *f, const char *text, const char *end)
{
    const char *eol, *v = line_value(text, end, "print fmt:", &eol);
    if (!v || v >= eol || *v != '"')
        return;
    const char *fs = v + 1, *q = fs;
    while (q < eol && *q != '"')
        q += *q == '\\' ? 2 : 1;
    if (q >= eol)
        return;
    const char *fe = q, *args = q + 1;
    /* the args, split at top-level commas */
    const char *arg_s[64], *arg_e[64];
    int nargs = 0, depth = 0, inq = 0;
    const char *a = args;
    while (a < eol && *a != ',')
        a++;
    if (a >= eol)
        return;
    const char *start = ++a;
    for (; a <= eol && nargs < 64; a++) {
        if (a < eol && inq) {
            if (*a == '\\')
                a++;
            else if (*a == inq)
                inq = 0;
            continue;
        }
        if (a < eol && (*a == '"' || *a == '\''))
            inq = *a;
        else if (a < eol && (*a == '(' || *a == '['))
            depth++;
        else if (a < eol && (*a == ')' || *a == ']'))
            depth--;
        else if (a == eol || (*a == ',' && depth == 0)) {
            arg_s[nargs] = start;
            arg_e[nargs++] = a;
            start = a + 1;
        }
    }
    int k = 0; /* the next arg */
    for (const char *c = fs; c < fe && k < nargs; c++) {
        if (*c != '%')
            continue;
        if (++c < fe && *c == '%')
            continue;
        while (c < fe && memchr("-+ #0123456789.*lhzjt", *c, 21)) {
            if (*c == '*')
                k++;
            c++;
        }
        if (c >= fe)
            break;
        if (*c == 'p' && c + 1 < fe && (c[1] == 'S' || c[1] == 's' || c[1] == 'F' || c[1] == 'f') &&
            k < nargs) {
            int i = arg_field(f, arg_s[k], arg_e[k]);
            if (i >= 0 && f->fields[i].kind == TD_F_INT && !f->fields[i].sym) {
                f->fields[i].sym = (c[1] == 'S' || c[1] == 'F') ? TD_SYM_OFF : TD_SYM_NAME;
                f->nsym++;
            }
        }
        k++;
    }
}

/* What the event maps onto, and the fields the mapping reads. */
static void classify(td_format *f)
{
    f->f_pid = f->f_a = f->f_b = f->f_c = -1;
    f->f_cpid = td_format_field(f, "common_pid");
    f->map = TD_MAP_GENERIC;
    if (name_is(f, "sched", "sched_switch")) {
        f->f_pid = td_format_field(f, "prev_pid");
        if (f->f_pid >= 0)
            f->map = TD_MAP_SWITCH;
    } else if (name_is(f, "sched", "sched_wakeup") || name_is(f, "sched", "sched_waking") ||
               name_is(f, "sched", "sched_wakeup_new")) {
        f->f_pid = td_format_field(f, "pid");
        if (f->f_pid >= 0)
            f->map = TD_MAP_WAKEUP;
    } else if (name_is(f, "power", "cpu_frequency") || name_is(f, "power", "cpu_idle")) {
        f->f_a = td_format_field(f, "state");
        f->f_b = td_format_field(f, "cpu_id");
        if (f->f_a >= 0 && f->f_b >= 0)
            f->map = f->name[4] == 'f' ? TD_MAP_CPU_FREQ : TD_MAP_CPU_IDLE;
    } else if (name_is(f, "task", "task_newtask")) {
        f->f_pid = td_format_field(f, "pid");
        f->f_a = td_format_field(f, "comm");
        if (f->f_pid >= 0)
            f->map = TD_MAP_NEWTASK;
    } else if (name_is(f, "task", "task_rename")) {
        f->f_pid = td_format_field(f, "pid");
        f->f_a = td_format_field(f, "oldcomm");
        f->f_b = td_format_field(f, "newcomm");
        if (f->f_pid >= 0 && f->f_b >= 0)
            f->map = TD_MAP_RENAME;
    } else if (name_is(f, "ftrace", "print")) {
        f->f_a = td_format_field(f, "buf");
        if (f->f_a >= 0)
            f->map = TD_MAP_PRINT;
    } else if (name_is(f, "ftrace", "function")) {
        f->f_a = td_format_field(f, "ip");
        f->f_b = td_format_field(f, "parent_ip");
        if (f->f_a >= 0 && f->f_b >= 0)
            f->map = TD_MAP_FUNCTION;
    } else if (name_is(f, "ftrace", "funcgraph_entry") || name_is(f, "ftrace", "funcgraph_exit")) {
        int exit = f->name[11] == 'x';
        f->f_a = td_format_field(f, "func");
        f->f_b = td_format_field(f, "calltime");
        f->f_c = td_format_field(f, "rettime");
        if (f->f_a >= 0)
            f->map = exit ? TD_MAP_GRAPH_EXIT : TD_MAP_GRAPH_ENTRY;
    } else if (name_is(f, "ftrace", "bprint")) {
        f->f_a = td_format_field(f, "ip");
        f->f_b = td_format_field(f, "fmt");
        f->f_c = td_format_field(f, "buf");
        if (f->f_a >= 0 && f->f_b >= 0 && f->f_c >= 0)
            f->map = TD_MAP_BPRINT;
    }
}

int td_formats_add(td_formats *t, int be, const char *sys, size_t sys_len, const char *text,
                   size_t len, const char **why)
{
    const char *end = text + len, *eol, *v;
    v = line_value(text, end, "name:", &eol);
    if (!v) {
        *why = "no name: line";
        return -1;
    }
    const char *name = v;
    size_t name_len = (size_t)(eol - v);
    while (name_len && (name[name_len - 1] == ' ' || name[name_len - 1] == '\t' ||
                        name[name_len - 1] == '\r'))
        name_len--;
    if (!name_len || name_len > 256 || sys_len > 256) {
        *why = "an empty or overlong event name";
        return -1;
    }
    v = line_value(text, end, "ID:", &eol);
    uint64_t id = 0;
    int digits = 0;
    while (v && v < eol && *v >= '0' && *v <= '9' && digits < 10) {
        id = id * 10 + (uint64_t)(*v++ - '0');
        digits++;
    }
    if (!v || !digits || id > UINT32_MAX) {
        *why = "no ID: line";
        return 1;
    }
    if (td_formats_get(t, (uint32_t)id)) {
        *why = "a second format with the same ID";
        return 1;
    }
    /* count the fields, then one allocation */
    size_t nf = 0;
    for (const char *q = text; q + 6 <= end; q++)
        if (memcmp(q, "field:", 6) == 0 && (q == text || q[-1] == '\t' || q[-1] == ' ' || q[-1] == '\n'))
            nf++;
    if (nf > TD_MAX_FIELDS) {
        *why = "more fields than a format may have (256)";
        return -1;
    }
    size_t bytes = sizeof(td_format) + nf * sizeof(td_field) + 2 * (sys_len + name_len + 2) + len + nf;
    if (t->bytes + bytes + sizeof(td_format *) * 2 > t->limit)
        return -2;
    td_format *f = tread_malloc(t->alloc, bytes);
    if (!f)
        return -3;
    memset(f, 0, sizeof *f);
    f->id = (uint32_t)id;
    f->be = be;
    f->fields = (td_field *)(f + 1);
    char *str = (char *)(f->fields + nf);
    f->system = str;
    memcpy(str, sys, sys_len);
    str[sys_len] = 0;
    str += sys_len + 1;
    f->system_len = sys_len;
    f->name = str;
    memcpy(str, name, name_len);
    str[name_len] = 0;
    str += name_len + 1;
    f->name_len = name_len;
    f->full = str;
    memcpy(str, sys, sys_len);
    str[sys_len] = ':';
    memcpy(str + sys_len + 1, name, name_len);
    str[sys_len + 1 + name_len] = 0;
    f->full_len = sys_len + 1 + name_len;
    str += f->full_len + 1;
    for (const char *q = text; q + 6 <= end && f->nfields < nf;) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        const char *e = nl ? nl : end;
        const char *fs = q;
        while (fs < e && (*fs == ' ' || *fs == '\t'))
            fs++;
        if ((size_t)(e - fs) >= 6 && memcmp(fs, "field:", 6) == 0) {
            const char *nm;
            size_t nml;
            td_field *fl = &f->fields[f->nfields];
            if (parse_field(fs + 6, e, fl, &nm, &nml) != 0 || nml > 255) {
                tread_free(t->alloc, f);
                *why = "a field: line that does not parse";
                return -1;
            }
            memcpy(str, nm, nml);
            str[nml] = 0;
            fl->name = str;
            fl->name_len = (uint16_t)nml;
            str += nml + 1;
            f->nfields++;
        }
        q = e + 1;
    }
    classify(f);
    print_fmt_syms(f, text, end);
    t->need_syms += f->nsym > 0 || f->map >= TD_MAP_FUNCTION;
    t->need_printk += f->map == TD_MAP_BPRINT;
    if (t->count + 1 > t->nslots / 2 && grow(t) != 0) {
        tread_free(t->alloc, f);
        return -3;
    }
    f->next = t->slots[f->id & (t->nslots - 1)];
    t->slots[f->id & (t->nslots - 1)] = f;
    f->all = t->all;
    t->all = f;
    t->count++;
    t->bytes += bytes + sizeof(td_format *) * 2;
    return 0;
}

int td_field_int(const td_format *f, int i, const unsigned char *rec, size_t len, int64_t *out)
{
    const td_field *fl = &f->fields[i];
    if (fl->kind != TD_F_INT || fl->offset > len || fl->size > len - fl->offset)
        return -1;
    uint64_t v = td_uint(f->be, rec + fl->offset, fl->size);
    if (fl->is_signed && fl->size < 8 && (v >> (fl->size * 8 - 1)) & 1)
        v |= ~(uint64_t)0 << (fl->size * 8);
    *out = (int64_t)v;
    return 0;
}

int td_field_bytes(const td_format *f, int i, const unsigned char *rec, size_t len,
                   const unsigned char **p, size_t *n)
{
    const td_field *fl = &f->fields[i];
    if (fl->offset > len || fl->size > len - fl->offset)
        return -1;
    if (fl->kind == TD_F_DYN_STRING || fl->kind == TD_F_DYN_BYTES) {
        uint32_t v = td_u32(f->be, rec + fl->offset);
        size_t o = v & 0xffff, l = v >> 16;
        if (fl->rel)
            o += fl->offset + fl->size;
        if (o > len || l > len - o)
            return -1;
        *p = rec + o;
        *n = l;
        return 0;
    }
    *p = rec + fl->offset;
    /* a "char buf[]" of size 0 runs to the record's end */
    *n = fl->size ? fl->size : len - fl->offset;
    return 0;
}

int td_field_str(const td_format *f, int i, const unsigned char *rec, size_t len, tread_str *out)
{
    const unsigned char *p;
    size_t n;
    if (td_field_bytes(f, i, rec, len, &p, &n) != 0)
        return -1;
    const unsigned char *z = memchr(p, 0, n);
    if (z)
        n = (size_t)(z - p);
    out->ptr = (const char *)p;
    out->len = n;
    return 0;
}
