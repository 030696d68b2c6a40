/* The table of format decoders and lazy argument codecs. Adding a format
 * means adding its entries here (doc/architecture.md, "Adding a format"). */
#include "core/decoder.h"

extern const tread_decoder_ops tread__json_decoder;
extern const tread_decoder_ops tread__cpuprofile_decoder;
extern const tread_decoder_ops tread__fxt_decoder;
extern const tread_args_codec tread__fxt_args_codec;
extern const tread_decoder_ops tread__perfetto_decoder;
extern const tread_args_codec tread__perfetto_args_codec;
extern const tread_decoder_ops tread__systrace_decoder;
extern const tread_args_codec tread__proto_args_codec;
extern const tread_decoder_ops tread__ftrace_decoder;
extern const tread_args_codec tread__ftrace_args_codec;
extern const tread_decoder_ops tread__tracedat_decoder;
extern const tread_args_codec tread__tracedat_args_codec;

static const tread_decoder_ops *const decoders[TREAD_FORMAT_COUNT_] = {
    [TREAD_FORMAT_JSON] = &tread__json_decoder,
    [TREAD_FORMAT_FXT] = &tread__fxt_decoder,
    [TREAD_FORMAT_PERFETTO] = &tread__perfetto_decoder,
    [TREAD_FORMAT_SYSTRACE] = &tread__systrace_decoder,
    [TREAD_FORMAT_FTRACE] = &tread__ftrace_decoder,
    [TREAD_FORMAT_CPUPROFILE] = &tread__cpuprofile_decoder,
    [TREAD_FORMAT_TRACEDAT] = &tread__tracedat_decoder,
};

static const tread_args_codec *const codecs[TREAD_ARGS_ENCODING_COUNT_] = {
    [TREAD_ARGS_TOKENS] = NULL, /* read inline by lib/core/args.c */
    [TREAD_ARGS_FXT] = &tread__fxt_args_codec,
    [TREAD_ARGS_PERFETTO] = &tread__perfetto_args_codec,
    [TREAD_ARGS_PROTO] = &tread__proto_args_codec,
    [TREAD_ARGS_FTRACE] = &tread__ftrace_args_codec,
    [TREAD_ARGS_TRACEDAT] = &tread__tracedat_args_codec,
};

const tread_decoder_ops *tread__decoder_for(tread_format f)
{
    return (unsigned)f < TREAD_FORMAT_COUNT_ ? decoders[f] : NULL;
}

const tread_args_codec *tread__args_codec(tread_args_encoding e)
{
    return (unsigned)e < TREAD_ARGS_ENCODING_COUNT_ ? codecs[e] : NULL;
}
