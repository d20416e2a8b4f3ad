/**
 * Internal: the largest GoTrue answer read.
 *
 * @module
 */

/**
 * The largest GoTrue answer read, in bytes: its largest answers (a session with its user, a list
 * of factors or grants) are kilobytes, and a body that never ends (a broken proxy, a hostile
 * server) was read into memory until the call's timeout, gigabytes at loopback speed.
 */
export const AUTH_BODY_LIMIT = 8_388_608; // 8 MiB, a literal: a bundler keeps an unused product
