/* zip_writer.h -- zip archives built by tests, honest or not: each member
 * with its name, bytes, method and Unix mode, and knobs that lie (the
 * declared size, the CRC, flags, where the data is). */
#ifndef GRADEQ_TESTS_ZIP_WRITER_H
#define GRADEQ_TESTS_ZIP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_zip_member {
    const char *name;
    const void *data;
    size_t len;
    bool deflate;
    unsigned mode;        /* 0: none recorded (made on DOS) */
    /* Lies, when set: */
    uint32_t usize;       /* the declared uncompressed size */
    bool bad_crc;
    uint16_t flags;
    uint16_t method;      /* as declared */
    int same_data_as;     /* >0: share member (same_data_as - 1)'s bytes */
} tl_zip_member;

/* The archive, malloc'd; *len its size. */
unsigned char *tl_zip_build(const tl_zip_member *m, size_t n, size_t *len);

#endif
