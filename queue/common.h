/* common.h -- what every public header of queue/ shares.
 *
 * Included by prescan.h and redis.h (and through them by every other
 * header), so a caller that includes any one of them has these.
 */
#ifndef GRADEQ_QUEUE_COMMON_H
#define GRADEQ_QUEUE_COMMON_H

/* A size for err buffers that holds every message of queue/ untruncated. */
#define Q_ERR_LEN 256

#endif
