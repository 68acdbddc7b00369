declare module 'apache-md5' {
  /** MD5-crypt (`$1$`) or Apache's apr1 (`$apr1$`), by the magic of the salt given; a new salt when none. */
  export default function md5(password: string, salt?: string): string;
}
