/** What the model reads about invalid: the target of unusable calls, never to be called. */

export const INVALID = "Do not use"
