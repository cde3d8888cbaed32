/* cgroup_file.h -- internal: the cgroup files' small text formats. Every
 * function returns 0 or -1 with errno set. */
#ifndef GRADEQ_SANDBOX_CGROUP_FILE_H
#define GRADEQ_SANDBOX_CGROUP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int cgf_write_str(int fd, const char *s);
int cgf_write_u64(int fd, uint64_t v);
/* The whole file (at most size-1 bytes), NUL-terminated. */
int cgf_read_text(int fd, char *buf, size_t size);
/* One number; "max" reads as UINT64_MAX. */
int cgf_read_u64(int fd, uint64_t *v);
/* The value of `key` in "key value" lines (memory.events, cpu.stat). */
int cgf_read_key(int fd, const char *key, uint64_t *v);
/* The same in text already read (NUL-terminated). */
int cgf_text_key(const char *text, const char *key, uint64_t *v);
/* Whether tok is one of the sep-separated words of list. */
bool cgf_has_token(const char *list, const char *tok, char sep);
/* mkdir that accepts an existing directory. */
int cgf_mkdir_ok(const char *path);
/* Opens path, writes s, closes. */
int cgf_write_file(const char *path, const char *s);

#endif
