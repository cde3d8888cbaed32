       IDENTIFICATION DIVISION.
       PROGRAM-ID. OOM.
      * Keeps every 1 MiB block: past any limit.
       DATA DIVISION.
       WORKING-STORAGE SECTION.
       01 BLK PIC X(1048576) BASED.
       PROCEDURE DIVISION.
           PERFORM FOREVER
               ALLOCATE BLK
               MOVE ALL "X" TO BLK
           END-PERFORM.
           STOP RUN.
