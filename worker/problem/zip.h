/* zip.h -- the members of a zip archive (a Polygon package as exported),
 * read by our own code into memory (zip.c); deflate itself is zlib's.
 *
 * Nothing is written anywhere: the members become files in memory, read
 * then as any material (material.h), and are gone when freed; no link can
 * be made, no path leaves a folder. Refused, naming the member (escaped):
 * a name that is absolute, holds "..", a backslash, a byte outside
 * printable ASCII (wk_mat_path_check); a symbolic link or any entry that
 * is neither a file nor a folder; an encrypted member; a method other than
 * stored and deflate; zip64, multi-disk archives; members whose bytes
 * overlap (the non-recursive zip bomb); a CRC that does not match; a
 * member that inflates to other than its declared size. Bounded before any
 * member is inflated, from the central directory: WK_ZIP_MEMBERS members,
 * the sum of the declared sizes (max_bytes), and each member's ratio of
 * declared to compressed size (WK_ZIP_RATIO); inflation stops at the
 * declared size, so a lie costs nothing.
 */
#ifndef GRADEQ_WORKER_ZIP_H
#define GRADEQ_WORKER_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "queue/job.h"

#define WK_ZIP_MEMBERS 16384
/* Deflate cannot do better than about 1032:1; past this a member is not
 * data but a bomb. */
#define WK_ZIP_RATIO 1100

typedef struct wk_zip {
    q_file *files;  /* the members (folders left out), names and data owned */
    size_t n;
} wk_zip;

/* Reads the archive buf[0..len) (what names it in messages) whole, the
 * members together at most max_bytes. Returns 0, or -1 with err. */
int wk_zip_read(const void *buf, size_t len, const char *what, uint64_t max_bytes, wk_zip *out, char *err,
                size_t errlen);
void wk_zip_free(wk_zip *z);

#endif
