// bench/simdjson_count: the simdjson row of bench/run, a peer of `tread
// stats`, not a dependency of tread. It loads the whole file (simdjson's
// padded_string), walks it with the on-demand API and counts the events
// of a Chrome JSON trace (an array of events, or an object whose
// "traceEvents" holds them) by "ph", reading every event's name (a
// checksum over its bytes, so the reads cannot be dropped).
//
// Built by bench/run (or `make bench/simdjson_count` by hand) when Debian's
// libsimdjson-dev is installed:
//   g++ -O3 -std=c++17 -o simdjson_count bench/simdjson_count.cpp -lsimdjson
// Usage: simdjson_count FILE
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

using namespace simdjson;

struct counts {
    std::map<std::string, uint64_t, std::less<>> by_ph;
    uint64_t events = 0, names = 0, name_sum = 0;
};

static void count_event(ondemand::value ev, counts &c)
{
    ondemand::object o;
    if (ev.get_object().get(o))
        return;
    c.events++;
    std::string_view ph, name;
    // fields in any order: find_field_unordered
    if (!o["ph"].get_string().get(ph)) {
        auto it = c.by_ph.find(ph);
        if (it == c.by_ph.end())
            c.by_ph.emplace(std::string(ph), 1);
        else
            it->second++;
    }
    if (!o["name"].get_string().get(name)) {
        c.names++;
        for (unsigned char ch : name)
            c.name_sum = c.name_sum * 31 + ch;
    }
}

static int count_array(ondemand::array events, counts &c)
{
    for (auto ev : events) {
        ondemand::value v;
        if (ev.get(v))
            return 1;
        count_event(v, c);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: simdjson_count FILE\n");
        return 2;
    }
    padded_string json;
    if (auto err = padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "simdjson_count: %s: %s\n", argv[1], error_message(err));
        return 1;
    }
    ondemand::parser parser;
    ondemand::document doc;
    if (auto err = parser.iterate(json).get(doc)) {
        std::fprintf(stderr, "simdjson_count: %s\n", error_message(err));
        return 1;
    }
    counts c;
    int bad = 0;
    ondemand::json_type t;
    if (doc.type().get(t)) {
        bad = 1;
    } else if (t == ondemand::json_type::array) {
        ondemand::array a;
        bad = doc.get_array().get(a) || count_array(a, c);
    } else {
        ondemand::array a;
        bad = doc["traceEvents"].get_array().get(a) || count_array(a, c);
    }
    if (bad) {
        std::fprintf(stderr, "simdjson_count: %s: not a Chrome JSON trace\n", argv[1]);
        return 1;
    }
    std::printf("events %llu names %llu (checksum %016llx)\n", (unsigned long long)c.events,
                (unsigned long long)c.names, (unsigned long long)c.name_sum);
    for (auto &kv : c.by_ph)
        std::printf("  ph %-4s %llu\n", kv.first.c_str(), (unsigned long long)kv.second);
    return 0;
}
