/* points.h -- points and scores as exact decimals: integers of 1e-6
 * ("micro-points"), never binary floating point.
 *
 * A points value is a non-negative int64 counting millionths of a point:
 * 12.5 points is 12500000. Every sum, minimum, product and scaling the
 * engine does is integer arithmetic on these, rounded half up to 1e-6
 * where it divides, so two workers give the same score to the last digit
 * and a client adding scores adds exact decimals.
 *
 * One value is at most Q_POINTS_MAX (a billion points). A job has at most
 * Q_TESTS_MAX tests and as many groups, so a job's total stays below
 * 2 * 1000 * 1e15, far inside int64; a product of two values (1e30) fits
 * the 128-bit integers the engine scales with.
 *
 * On the wire a job gives points as a msgpack integer, a float (rounded to
 * the nearest 1e-6: exact for any decimal of at most six places up to
 * Q_POINTS_MAX) or a decimal string ("12.5": digits, an optional point and
 * at most six decimals). A result carries them as canonical decimal
 * strings ("12.5", "100", "0.333333": no exponent, no trailing zeros), so
 * that JSON, Python's Decimal and a database's NUMERIC read them exactly.
 */
#ifndef GRADEQ_QUEUE_POINTS_H
#define GRADEQ_QUEUE_POINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int64_t q_points;

#define Q_POINTS_ONE 1000000LL
#define Q_POINTS_MAX (1000000000LL * Q_POINTS_ONE)
/* The longest canonical text, NUL included: 10 digits, '.', 6 decimals. */
#define Q_POINTS_TEXT 24

/* Reads the decimal text s[0..n): [+] digits [. digits], at least one
 * digit, nothing else. With `round`, decimals past the sixth are rounded
 * half up and an exponent (e-5, E+2) is taken, as programs print numbers;
 * without it more than six decimals are refused. Returns 0 with *out set,
 * or -1 (not such a number, negative, or over Q_POINTS_MAX). */
int q_points_parse(const char *s, size_t n, bool round, q_points *out);

/* A finite double in [0, Q_POINTS_MAX points], rounded to the nearest 1e-6.
 * Returns 0, or -1 (NaN, infinite, negative, too large). */
int q_points_from_double(double v, q_points *out);

/* The canonical text of p (>= 0) into out; returns out. */
const char *q_points_format(q_points p, char out[Q_POINTS_TEXT]);

/* round(a * b / c), half up, for a, b >= 0 and c > 0, within int64 (the
 * caller keeps a * b / c at most Q_POINTS_MAX times the job's tests). */
q_points q_points_muldiv(q_points a, q_points b, q_points c);

#endif
