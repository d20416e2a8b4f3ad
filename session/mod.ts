/**
 * The session area of fetchbase.
 *
 * @module
 */

export {};
